package mrcsample

//go:generate go tool bpf2go -tags linux -target bpfel -type mrc_sample mrcsample mrcsample.bpf.c -- -O2 -g -Wall -Werror -I../include
