package pagecache

//go:generate go tool bpf2go -tags linux -target bpfel pagecache pagecache.bpf.c -- -O2 -g -Wall -Werror -mcpu=v3 -I../include
