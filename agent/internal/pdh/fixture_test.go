package pdh

import (
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	cases := []struct {
		path     string
		want     Counter
		instance string
	}{
		{`\PhysicalDisk(0 C:)\Avg. Disk sec/Read`, Counter{"PhysicalDisk", "Avg. Disk sec/Read"}, "0 C:"},
		{`\Memory\Available Bytes`, Counter{"Memory", "Available Bytes"}, NoInstance},
		{`\Cache\Copy Read Hits %`, Counter{"Cache", "Copy Read Hits %"}, NoInstance},
		{`\MSSQL$SALES:Buffer Manager\Page life expectancy`, Counter{"MSSQL$SALES:Buffer Manager", "Page life expectancy"}, NoInstance},
		{`\PhysicalDisk(1 D: (data))\Split IO/Sec`, Counter{"PhysicalDisk", "Split IO/Sec"}, "1 D: (data)"},
	}
	for _, tc := range cases {
		got, instance, err := ParsePath(tc.path)
		if err != nil || got != tc.want || instance != tc.instance {
			t.Errorf("ParsePath(%q) = %+v, %q, %v; want %+v, %q", tc.path, got, instance, err, tc.want, tc.instance)
		}
	}
	for _, bad := range []string{"", `Memory\Available Bytes`, `\Memory`, `\Memory\`, `\(x)\y`} {
		if _, _, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q): want an error", bad)
		}
	}
}

func TestParseFixture(t *testing.T) {
	s, err := ParseFixture(strings.NewReader("# comment\n\n" +
		"timebase\t\\PhysicalDisk\\Avg. Disk sec/Read\t10000000\n" +
		"\\PhysicalDisk(0 C:)\\Avg. Disk sec/Read\t30000000\t600\n" +
		"\\Memory\\Available Bytes\t1073741824\t0\n"))
	if err != nil {
		t.Fatal(err)
	}
	secRead := Counter{"PhysicalDisk", "Avg. Disk sec/Read"}
	if v, ok := s.Get(secRead, "0 C:"); !ok || v != (Raw{30000000, 600}) || s.TimeBase[secRead] != 10000000 {
		t.Fatalf("disk value %+v %v, time base %d", v, ok, s.TimeBase[secRead])
	}
	if v, ok := s.Get(Counter{"Memory", "Available Bytes"}, NoInstance); !ok || v.First != 1<<30 {
		t.Fatalf("memory value %+v %v", v, ok)
	}
	for _, bad := range []string{"\\Memory\\Available Bytes\t12\n", "\\Memory\\Available Bytes\tx\t0\n",
		"timebase\t\\PhysicalDisk\\Avg. Disk sec/Read\t0\n"} {
		if _, err := ParseFixture(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("ParseFixture(%q): want an error naming line 1, got %v", bad, err)
		}
	}
}
