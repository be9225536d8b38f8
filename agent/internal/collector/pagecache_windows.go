package collector

// windowsFileCacheCollector reads the system file cache's copy-read counters through PDH.
func windowsFileCacheCollector() Collector {
	reader := newPDHReader("page_cache", pdhFileCacheSpecs())
	return &fileCacheCollector{read: func() (copyReads, error) {
		s, err := reader.read()
		if err != nil {
			return copyReads{}, err
		}
		return copyReadsFromPDH(s)
	}}
}
