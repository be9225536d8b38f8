package proofstats

import (
	"math"
	"sync"
)

// quantiles memoises StudentQuantile: a run asks for the same few (p, df) again and again.
var quantiles sync.Map // [2]float64{p, df} -> float64

// StudentQuantile is the p-quantile of Student's t distribution with df degrees of freedom
// (0 < p < 1, df >= 1), found by bisection on the distribution function. Proof runs have few
// passes, so the heavy tails of small df are what keeps their intervals honest.
func StudentQuantile(p float64, df int) float64 {
	if p <= 0 || p >= 1 || df < 1 {
		return math.NaN()
	}
	if p < 0.5 {
		return -StudentQuantile(1-p, df)
	}
	key := [2]float64{p, float64(df)}
	if q, ok := quantiles.Load(key); ok {
		return q.(float64)
	}
	q := studentQuantile(p, df)
	quantiles.Store(key, q)
	return q
}

func studentQuantile(p float64, df int) float64 {
	lo, hi := 0.0, 1.0
	for studentCDF(hi, df) < p {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if studentCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// studentCDF is P(T <= t) for t >= 0: 1 - I_x(df/2, 1/2) / 2 with x = df / (df + t²).
func studentCDF(t float64, df int) float64 {
	v := float64(df)
	return 1 - regularizedBeta(v/(v+t*t), v/2, 0.5)/2
}

// regularizedBeta is I_x(a, b), by its continued fraction (modified Lentz), using the symmetry
// I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges slowly.
func regularizedBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	case x > (a+1)/(a+b+2):
		return 1 - regularizedBeta(1-x, b, a)
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(a*math.Log(x) + b*math.Log(1-x) - la - lb + lab)
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		// even step
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		f *= c * d
		// odd step
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		delta := c * d
		f *= delta
		if math.Abs(delta-1) < 1e-14 {
			break
		}
	}
	return front * f / a
}
