package blocksplit

//go:generate go tool bpf2go -tags linux -target bpfel blocksplit blocksplit.bpf.c -- -O2 -g -Wall -Werror -I../include
