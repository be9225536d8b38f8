package pkgrepo

import "github.com/ProtonMail/go-crypto/openpgp/clearsign"

var clearsignEncode = clearsign.Encode
