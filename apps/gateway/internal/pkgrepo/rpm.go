package pkgrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// rpmHeader is the main header of an .rpm: its tags, and where it lies in the file (yum's
// primary metadata gives that byte range, rpm:header-range, so a client can fetch it alone).
type rpmHeader struct {
	tags       map[int32]rpmTag
	sig        map[int32]rpmTag // the signature header's, where rpm keeps the payload's size
	start, end int64
}

type rpmTag struct {
	kind int32
	// strs holds STRING, STRING_ARRAY and I18NSTRING values (the first locale of an I18N one);
	// ints holds INT16 and INT32 values.
	strs []string
	ints []int64
}

// The header tags the repository metadata is built from (rpm's lib/rpmtag.h).
const (
	tagName           = 1000
	tagVersion        = 1001
	tagRelease        = 1002
	tagEpoch          = 1003
	tagSummary        = 1004
	tagDescription    = 1005
	tagBuildTime      = 1006
	tagBuildHost      = 1007
	tagSize           = 1009
	tagVendor         = 1011
	tagLicense        = 1014
	tagPackager       = 1015
	tagGroup          = 1016
	tagURL            = 1020
	tagArch           = 1022
	tagFileModes      = 1030
	tagSourceRPM      = 1044
	tagArchiveSize    = 1046
	tagProvideName    = 1047
	tagRequireFlags   = 1048
	tagRequireName    = 1049
	tagRequireVersion = 1050
	tagProvideFlags   = 1112
	tagProvideVersion = 1113
	tagDirIndexes     = 1116
	tagBaseNames      = 1117
	tagDirNames       = 1118
	tagLongSize       = 5009
	// In either header: the 64-bit payload size. sigPayloadSize is the 32-bit one, in the
	// signature header only.
	tagLongArchiveSize = 271
	sigPayloadSize     = 1007
)

// The lead is 96 bytes; each header starts with this magic, a version byte and 4 reserved bytes.
var rpmHeaderMagic = []byte{0x8e, 0xad, 0xe8, 0x01}

const rpmMaxHeader = 64 << 20 // rpm's own limit on a header's data

// readRPMHeader reads an .rpm's main header: past the lead and the signature header (padded
// to 8 bytes), never the payload, however large the package.
func readRPMHeader(path string) (*rpmHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lead := make([]byte, 96)
	if _, err := io.ReadFull(f, lead); err != nil || !bytes.Equal(lead[:4], []byte{0xed, 0xab, 0xee, 0xdb}) {
		return nil, fmt.Errorf("%s is not an rpm package (no rpm lead)", path)
	}
	sig, sigLen, err := parseHeader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: signature header: %w", path, err)
	}
	start := int64(96) + sigLen
	if pad := sigLen % 8; pad != 0 {
		start += 8 - pad
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return nil, err
	}
	tags, length, err := parseHeader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	return &rpmHeader{tags: tags, sig: sig, start: start, end: start + length}, nil
}

// headerSizes reads a header's preamble: its number of index entries and of data bytes.
func headerSizes(r io.Reader) (entries, data int64, err error) {
	pre := make([]byte, 16)
	if _, err := io.ReadFull(r, pre); err != nil {
		return 0, 0, errors.New("truncated")
	}
	if !bytes.Equal(pre[:4], rpmHeaderMagic) {
		return 0, 0, errors.New("no header magic")
	}
	entries, data = int64(binary.BigEndian.Uint32(pre[8:12])), int64(binary.BigEndian.Uint32(pre[12:16]))
	if entries > 65536 || data > rpmMaxHeader {
		return 0, 0, fmt.Errorf("implausibly large (%d entries, %d bytes)", entries, data)
	}
	return entries, data, nil
}

func parseHeader(r io.Reader) (map[int32]rpmTag, int64, error) {
	entries, dataLen, err := headerSizes(r)
	if err != nil {
		return nil, 0, err
	}
	index := make([]byte, entries*16)
	data := make([]byte, dataLen)
	if _, err := io.ReadFull(r, index); err != nil {
		return nil, 0, errors.New("truncated index")
	}
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, 0, errors.New("truncated data")
	}
	tags := map[int32]rpmTag{}
	for i := int64(0); i < entries; i++ {
		e := index[i*16:]
		tag, kind := int32(binary.BigEndian.Uint32(e)), int32(binary.BigEndian.Uint32(e[4:]))
		off, count := int64(binary.BigEndian.Uint32(e[8:])), int64(binary.BigEndian.Uint32(e[12:]))
		if off > dataLen || count > dataLen {
			return nil, 0, fmt.Errorf("tag %d points outside the header", tag)
		}
		value := rpmTag{kind: kind}
		switch kind {
		case 3, 4, 5: // INT16, INT32, INT64
			width := map[int32]int64{3: 2, 4: 4, 5: 8}[kind]
			if off+count*width > dataLen {
				return nil, 0, fmt.Errorf("tag %d points outside the header", tag)
			}
			for j := int64(0); j < count; j++ {
				switch kind {
				case 3:
					value.ints = append(value.ints, int64(binary.BigEndian.Uint16(data[off+2*j:])))
				case 4:
					value.ints = append(value.ints, int64(binary.BigEndian.Uint32(data[off+4*j:])))
				default:
					value.ints = append(value.ints, int64(binary.BigEndian.Uint64(data[off+8*j:])))
				}
			}
		case 6, 8, 9: // STRING, STRING_ARRAY, I18NSTRING
			if kind == 6 {
				count = 1
			}
			rest := data[off:]
			for j := int64(0); j < count; j++ {
				end := bytes.IndexByte(rest, 0)
				if end < 0 {
					return nil, 0, fmt.Errorf("tag %d: an unterminated string", tag)
				}
				value.strs = append(value.strs, string(rest[:end]))
				rest = rest[end+1:]
			}
		default:
			continue // binary values: none is needed
		}
		tags[tag] = value
	}
	return tags, 16 + entries*16 + dataLen, nil
}

// str is a string tag's value ("" when absent).
func (h *rpmHeader) str(tag int32) string {
	if v := h.tags[tag].strs; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (h *rpmHeader) strs(tag int32) []string { return h.tags[tag].strs }
func (h *rpmHeader) ints(tag int32) []int64  { return h.tags[tag].ints }

// num is an integer tag's first value, and whether the package has it.
func (h *rpmHeader) num(tag int32) (int64, bool) {
	if v := h.tags[tag].ints; len(v) > 0 {
		return v[0], true
	}
	return 0, false
}

// sizes are the installed size and the payload's uncompressed size: the 32-bit tags, or the
// 64-bit ones rpm writes instead past 4 GiB; the payload's size may be in the signature header
// only (rpm's PAYLOADSIZE, which nfpm writes).
func (h *rpmHeader) sizes() (installed, archive int64) {
	installed, ok := h.num(tagSize)
	if !ok {
		installed, _ = h.num(tagLongSize)
	}
	for _, v := range [][]int64{h.ints(tagArchiveSize), h.ints(tagLongArchiveSize), h.sig[sigPayloadSize].ints, h.sig[tagLongArchiveSize].ints} {
		if len(v) > 0 {
			return installed, v[0]
		}
	}
	return installed, 0
}

// files are the package's paths (dirnames[dirindex] + basename), and whether each is a directory.
func (h *rpmHeader) files() ([]string, []bool, error) {
	base, dirs, idx, modes := h.strs(tagBaseNames), h.strs(tagDirNames), h.ints(tagDirIndexes), h.ints(tagFileModes)
	if len(idx) != len(base) || len(modes) != len(base) {
		return nil, nil, errors.New("the file list's tags disagree in length")
	}
	paths, isDir := make([]string, len(base)), make([]bool, len(base))
	for i, b := range base {
		if idx[i] < 0 || idx[i] >= int64(len(dirs)) {
			return nil, nil, errors.New("a file's directory index is out of range")
		}
		paths[i] = dirs[idx[i]] + b
		isDir[i] = modes[i]&0o170000 == 0o040000
	}
	return paths, isDir, nil
}
