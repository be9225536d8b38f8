package proofrun

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// armsBlock is a block whose arms ran in order at the given TPS for 4 and 8 clients; latency
// is the inverse of TPS (a closed loop with a fixed number of clients).
func armsBlock(index int, order []string, tps map[string][2]float64) ArmBlock {
	b := ArmBlock{Index: index, Order: order}
	for _, arm := range order {
		p := ArmPass{Arm: arm}
		for i, clients := range []int{4, 8} {
			v := tps[arm][i]
			p.Steps = append(p.Steps, ArmStep{Clients: clients, TPS: v, LatencyMeanSeconds: float64(clients) / v})
		}
		b.Passes = append(b.Passes, p)
	}
	return b
}

// Every block the cache gives exactly +20 % and the oracle +50 % over off, while the machine's
// speed drifts by a factor of three between blocks and the order changes: each effect comes out
// exact, with no interval width, because each block is compared only with itself.
func TestArmEffectsCompareEachBlockWithItself(t *testing.T) {
	rep := &ArmsReport{Arms: []string{"off", "cache", "oracle"}, Control: "off", Clients: []int{4, 8}, Seed: 9}
	orders := [][]string{{"off", "cache", "oracle"}, {"oracle", "off", "cache"}, {"cache", "oracle", "off"}, {"off", "oracle", "cache"}}
	for i, speed := range []float64{100, 300, 150, 220} {
		rep.Blocks = append(rep.Blocks, armsBlock(i+1, orders[i], map[string][2]float64{
			"off": {speed, 2 * speed}, "cache": {1.2 * speed, 2.4 * speed}, "oracle": {1.5 * speed, 3 * speed}}))
	}
	want := map[[2]string]float64{{"cache", "off"}: 20, {"oracle", "off"}: 50, {"cache", "oracle"}: -20}
	effects := armEffects(rep)
	if len(effects) != 3*3 {
		t.Fatalf("%d effects, want cache and oracle against off and cache against oracle, at 4, 8 and all clients", len(effects))
	}
	for _, e := range effects {
		w, ok := want[[2]string{e.Arm, e.Against}]
		if !ok {
			t.Fatalf("unexpected effect %s against %s", e.Arm, e.Against)
		}
		c := e.Throughput
		if c.Status != Measured || c.Blocks != 4 {
			t.Fatalf("%s against %s at %d clients: %+v", e.Arm, e.Against, e.Clients, c)
		}
		for _, v := range []*float64{c.Percent, c.BootstrapLowPercent, c.BootstrapHighPercent, c.StudentLowPercent, c.StudentHighPercent} {
			if math.Abs(*v-w) > 1e-6 {
				t.Fatalf("%s against %s at %d clients: %+v, want exactly %+g %%", e.Arm, e.Against, e.Clients, c, w)
			}
		}
		if l := *e.LatencyMean.Percent; math.Abs((1+l/100)*(1+w/100)-1) > 1e-6 {
			t.Fatalf("latency change %g %% with a TPS change of %g %%: latency is 1/TPS here", l, w)
		}
	}
}

func TestArmEffectsSayWhatCannotBeMeasured(t *testing.T) {
	rep := &ArmsReport{Arms: []string{"off", "cache"}, Control: "off", Clients: []int{4, 8}}
	tps := map[string][2]float64{"off": {100, 200}, "cache": {110, 0}}
	for i := range 3 {
		rep.Blocks = append(rep.Blocks, armsBlock(i+1, []string{"off", "cache"}, tps))
	}
	byClients := map[int]ArmEffect{}
	for _, e := range armEffects(rep) {
		byClients[e.Clients] = e
	}
	if c := byClients[4].Throughput; c.Status != NoMeasurableDifference && c.Status != Measured {
		t.Fatalf("4 clients: %+v, want a change", c)
	}
	for _, clients := range []int{8, 0} {
		if c := byClients[clients].Throughput; c.Status != NotMeasured || !strings.Contains(c.Reason, "no positive value") {
			t.Fatalf("%d clients with a pass of 0 TPS: %+v, want not measured with the reason", clients, c)
		}
	}
	rep.Blocks = rep.Blocks[:2]
	if c := armEffects(rep)[1].Throughput; c.Status != NotMeasured || !strings.Contains(c.Reason, "too few blocks") {
		t.Fatalf("two blocks: %+v, want not measured, too few blocks", c)
	}
}

func TestCheckArmsRefusesAnUnclearControl(t *testing.T) {
	fake := &fakeArm{}
	for name, arms := range map[string][]Arm{
		"one arm":             {{Name: "off"}},
		"control with accel":  {{Name: "off", Accel: fake}, {Name: "cache", Accel: fake}},
		"second without":      {{Name: "off"}, {Name: "cache"}},
		"duplicate arm names": {{Name: "off"}, {Name: "x", Accel: fake}, {Name: "x", Accel: &fakeArm{}}},
	} {
		if err := checkArms(arms); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

// fakeArm is an Accelerator that only records whether it is on, and at each Enable which other
// arms were on (none should be).
type fakeArm struct {
	name    string
	on      bool
	all     *[]*fakeArm
	enables int
	overlap []string
}

func (f *fakeArm) Enable(context.Context, Targets) error {
	if f.all != nil {
		for _, other := range *f.all {
			if other != f && other.on {
				f.overlap = append(f.overlap, other.name)
			}
		}
	}
	f.on = true
	f.enables++
	return nil
}
func (f *fakeArm) Disable(context.Context) error { f.on = false; return nil }
func (f *fakeArm) Stats() AcceleratorStats       { return AcceleratorStats{} }
func (f *fakeArm) Close() error                  { return nil }
