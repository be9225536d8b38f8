package blocklatency

//go:generate go tool bpf2go -tags linux -target bpfel -type latency_key -type latency_hist blocklatency blocklatency.bpf.c -- -O2 -g -Wall -Werror -I../include
