package blockio

//go:generate go tool bpf2go -tags linux -target bpfel -type latency_key -type latency_hist -type issued_slot blockio blockio.bpf.c -- -O2 -g -Wall -Werror -I../include
