package fragscan

import (
	"container/heap"
	"sort"
)

// worstFiles keeps the limit files with the most extents seen so far: a min-heap whose root
// is the least bad file kept, replaced when a worse one arrives.
type worstFiles struct {
	limit int
	files worstHeap
}

func (w *worstFiles) offer(f FileExtents) {
	if w.limit <= 0 || f.Extents < 2 {
		return
	}
	if len(w.files) < w.limit {
		heap.Push(&w.files, f)
		return
	}
	if less(w.files[0], f) {
		w.files[0] = f
		heap.Fix(&w.files, 0)
	}
}

// sorted returns the kept files, most extents first, ties by path.
func (w *worstFiles) sorted() []FileExtents {
	out := append([]FileExtents(nil), w.files...)
	sort.Slice(out, func(i, j int) bool { return less(out[j], out[i]) })
	return out
}

// less orders by badness: fewer extents is less bad; between equals the later path is less
// bad, so the list reads alphabetically within one extent count.
func less(a, b FileExtents) bool {
	if a.Extents != b.Extents {
		return a.Extents < b.Extents
	}
	return a.Path > b.Path
}

type worstHeap []FileExtents

func (h worstHeap) Len() int           { return len(h) }
func (h worstHeap) Less(i, j int) bool { return less(h[i], h[j]) }
func (h worstHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstHeap) Push(x any)        { *h = append(*h, x.(FileExtents)) }
func (h *worstHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
