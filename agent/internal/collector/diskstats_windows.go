package collector

// diskstatsSource reads the \PhysicalDisk counters through PDH (diskstats_pdh.go maps them).
func diskstatsSource(Options) func() ([]diskSample, error) {
	reader := newPDHReader("diskstats", pdhDiskSpecs())
	return func() ([]diskSample, error) {
		s, err := reader.read()
		if err != nil {
			return nil, err
		}
		return diskSamplesFromPDH(s)
	}
}
