package proofstats

import (
	"math"
	"testing"
)

// Published two-sided 95 % and 99 % critical values of Student's t.
func TestStudentQuantileMatchesTables(t *testing.T) {
	for _, c := range []struct {
		p    float64
		df   int
		want float64
	}{
		{0.975, 1, 12.706}, {0.975, 2, 4.303}, {0.975, 3, 3.182}, {0.975, 4, 2.776}, {0.975, 6, 2.447},
		{0.975, 10, 2.228}, {0.975, 30, 2.042}, {0.975, 120, 1.980}, {0.995, 2, 9.925}, {0.995, 8, 3.355},
		{0.5, 5, 0}, {0.025, 4, -2.776},
	} {
		if got := StudentQuantile(c.p, c.df); math.Abs(got-c.want) > 5e-4 {
			t.Errorf("StudentQuantile(%v, %d) = %.4f, want %.3f", c.p, c.df, got, c.want)
		}
	}
	if !math.IsNaN(StudentQuantile(0.975, 0)) || !math.IsNaN(StudentQuantile(1, 3)) {
		t.Error("an impossible quantile must be NaN, not a number an interval could use")
	}
}
