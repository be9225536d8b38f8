package blocksamples

//go:generate go tool bpf2go -tags linux -target bpfel -type block_sample blocksamples blocksamples.bpf.c -- -O2 -g -Wall -Werror -I../include
