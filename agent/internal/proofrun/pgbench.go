package proofrun

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/spindle-io/spindle/agent/internal/pgquery"
)

// ErrUnavailable means the profile cannot run on this machine (e.g. no pgbench); the message
// says what is missing.
var ErrUnavailable = errors.New("proof-run profile unavailable")

// pgbenchScaleBytes is about what one pgbench scale unit takes on disk (100,000 accounts with
// their index: ~15 MB).
const pgbenchScaleBytes = 16 << 20

// pgDatabase is the scratch database a pgproof run creates.
type pgDatabase struct {
	admin    *pgconn.PgConn
	name     string
	conninfo string // key=value for pgbench, naming the scratch database
	env      []string
	dir      string // its directory under the data directory
}

// pgbenchSetup is a scratch database filled by pgbench -i, ready for measured passes.
type pgbenchSetup struct {
	binary string // pgbench
	db     *pgDatabase
	device Device
	size   int64 // the database's files after pgbench -i
}

func (r *runner) runPgbench(ctx context.Context, rep *Report) (err error) {
	s, err := r.preparePgbench(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if dropErr := r.dropPgbench(ctx, s); dropErr != nil && err == nil {
			err = dropErr
		}
	}()
	path, db := s.binary, s.db
	rep.Device = s.device
	rep.Files = append(rep.Files, File{Role: "data", Path: db.dir, Bytes: s.size})
	rep.Notes = append(rep.Notes, "PostgreSQL's shared buffers are not emptied between passes (that needs a "+
		"restart); the database's files are dropped from the page cache at the start of every pass. The warm-up "+
		"pass fills the shared buffers before the first compared pass, so every compared pass starts from what "+
		"the pass before it left, and the pair-by-pair comparison removes what remains of that order effect")
	if r.req.AB {
		defer func() {
			if disableErr := r.accel.Disable(context.WithoutCancel(ctx)); disableErr != nil && err == nil {
				err = disableErr
			}
		}()
	}
	logDir, err := os.MkdirTemp("", "spindle-pgbench-log-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(logDir)
	seconds := int(math.Ceil(r.req.StepSeconds))
	statsBefore := r.acceleratorStats()
	err = r.alternate(ctx, rep, func(ctx context.Context, pass int, side Side, warmUp bool) error {
		targets, err := r.pgbenchPassTargets(db.dir)
		if err != nil {
			return err
		}
		if r.req.AB {
			if side == On {
				err = r.accel.Enable(ctx, targets)
			} else {
				err = r.accel.Disable(ctx)
			}
			if err != nil {
				return fmt.Errorf("switch the acceleration features %s: %w", side, err)
			}
		}
		for i, step := range rep.Steps {
			r.report(Progress{Phase: PhaseRunning, Pass: pass + 1, Side: side, WarmUp: warmUp, Step: i + 1,
				Steps: len(rep.Steps), StepLabel: step.Label})
			m, err := r.pgbenchStep(ctx, path, db, step.Load.Clients, seconds, logDir)
			if err != nil {
				return fmt.Errorf("step %q: %w", step.Label, err)
			}
			m.pass, m.side, m.warmUp = pass, side, warmUp
			r.measures[i] = append(r.measures[i], m)
		}
		if side == On {
			r.onStats = r.accel.Stats()
		}
		return nil
	})
	if err != nil {
		return err
	}
	rep.Accelerator = r.acceleratorSummary(statsBefore)
	return nil
}

// preparePgbench checks pgbench and the server, creates the scratch database inside the allowed
// paths (refusing when it would fall outside them or below the free-space floor) and fills it
// with pgbench -i at the request's size. On success the caller drops it with dropPgbench.
func (r *runner) preparePgbench(ctx context.Context) (_ *pgbenchSetup, err error) {
	r.report(Progress{Phase: PhasePreparing, Message: "checking pgbench and PostgreSQL"})
	binary := r.req.Postgres.PgbenchPath
	if binary == "" {
		binary = "pgbench"
	}
	path, lookErr := exec.LookPath(binary)
	if lookErr != nil {
		return nil, fmt.Errorf("%w: pgbench profile skipped: %s not found (install the PostgreSQL client, "+
			"e.g. apt-get install postgresql-client)", ErrUnavailable, binary)
	}
	var allowed []string
	for _, p := range r.req.Paths {
		dir, err := allowedDir(p)
		if err != nil {
			return nil, err
		}
		allowed = append(allowed, dir)
	}
	config, err := pgconn.ParseConfig(r.req.Postgres.ConnString)
	if err != nil {
		return nil, invalid("the PostgreSQL connection string does not parse: %v", err)
	}
	admin, err := pgconn.ConnectConfig(ctx, config)
	if err != nil {
		return nil, fmt.Errorf("%w: pgbench profile skipped: cannot connect to PostgreSQL: %v", ErrUnavailable, err)
	}
	defer func() {
		if err != nil {
			admin.Close(context.WithoutCancel(ctx))
		}
	}()
	dataDir, err := pgquery.Value(ctx, admin, "SHOW data_directory")
	if err != nil {
		return nil, refused("cannot locate PostgreSQL's data directory (%v): the role needs superuser or "+
			"pg_read_all_settings, so the run can check its files stay inside the allowed paths", err)
	}
	base := filepath.Join(dataDir, "base")
	if err := checkInside(base, allowed); err != nil {
		return nil, refused("the database's files would go to %s, outside the allowed paths %s: allow PostgreSQL's "+
			"data directory", base, strings.Join(allowed, ", "))
	}
	scale := max(1, r.req.SizeLimitBytes/pgbenchScaleBytes)
	device, err := checkSpace([]spaceNeed{{base, scale * pgbenchScaleBytes}}, r.req.FreeSpaceFloorBytes)
	if err != nil {
		return nil, err
	}
	db, err := createScratchDatabase(ctx, admin, config, base)
	if err != nil {
		return nil, err
	}
	s := &pgbenchSetup{binary: path, db: db, device: device}
	s.device.Path = db.dir
	defer func() {
		if err != nil {
			err = errors.Join(err, r.dropPgbench(ctx, s))
		}
	}()
	r.report(Progress{Phase: PhasePreparing, Message: fmt.Sprintf("pgbench -i at scale %d", scale)})
	if out, err := r.pgbenchCommand(ctx, path, db, "-i", "-q", "-s", strconv.FormatInt(scale, 10)).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgbench -i: %w: %s", err, lastLines(string(out), 5))
	}
	if _, s.size, err = regularFilesIn(db.dir); err != nil {
		return nil, err
	}
	return s, nil
}

// dropPgbench drops the scratch database (even when ctx has ended) and closes the connection.
func (r *runner) dropPgbench(ctx context.Context, s *pgbenchSetup) error {
	r.report(Progress{Phase: PhaseCleaning, Message: "dropping the scratch database"})
	dropCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	defer s.db.admin.Close(dropCtx)
	if err := pgquery.Exec(dropCtx, s.db.admin, "DROP DATABASE IF EXISTS "+pgquery.Identifier(s.db.name)+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop the scratch database %s: %w (drop it by hand)", s.db.name, err)
	}
	return nil
}

func createScratchDatabase(ctx context.Context, admin *pgconn.PgConn, config *pgconn.Config, base string) (*pgDatabase, error) {
	var random [4]byte
	_, _ = rand.Read(random[:])
	name := "spindle_proofrun_" + hex.EncodeToString(random[:])
	if err := pgquery.Exec(ctx, admin, "CREATE DATABASE "+pgquery.Identifier(name)); err != nil {
		return nil, fmt.Errorf("create the scratch database (the role needs CREATEDB): %w", err)
	}
	// name is ours: spindle_proofrun_ and hex digits, no quoting needed beyond the literal.
	rawOID, err := pgquery.Value(ctx, admin, "SELECT oid FROM pg_database WHERE datname = '"+name+"'")
	if err != nil {
		return nil, err
	}
	oid, err := strconv.ParseUint(rawOID, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("oid of the scratch database: %w", err)
	}
	conninfo := fmt.Sprintf("host=%s port=%d user=%s dbname=%s", config.Host, config.Port, config.User, name)
	db := &pgDatabase{admin: admin, name: name, conninfo: conninfo, dir: filepath.Join(base, strconv.FormatUint(oid, 10))}
	if config.Password != "" {
		db.env = append(db.env, "PGPASSWORD="+config.Password)
	}
	return db, nil
}

func (r *runner) pgbenchCommand(ctx context.Context, binary string, db *pgDatabase, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, binary, append(args, db.conninfo)...)
	cmd.Env = append(os.Environ(), db.env...)
	return cmd
}

var tpsLine = regexp.MustCompile(`(?m)^tps = ([0-9.]+)`)

// pgbenchStep runs pgbench with clients for seconds, logging every transaction's latency.
func (r *runner) pgbenchStep(ctx context.Context, binary string, db *pgDatabase, clients, seconds int, logDir string) (measure, error) {
	prefix := filepath.Join(logDir, fmt.Sprintf("step%d", time.Now().UnixNano()))
	threads := min(clients, runtime.NumCPU())
	out, err := r.pgbenchCommand(ctx, binary, db, "-n", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(threads),
		"-T", strconv.Itoa(seconds), "-l", "--log-prefix="+prefix).CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return measure{}, ctx.Err()
		}
		return measure{}, fmt.Errorf("pgbench: %w: %s", err, lastLines(string(out), 5))
	}
	match := tpsLine.FindStringSubmatch(string(out))
	if match == nil {
		return measure{}, fmt.Errorf("pgbench printed no tps line: %s", lastLines(string(out), 5))
	}
	tps, _ := strconv.ParseFloat(match[1], 64)
	h, err := readPgbenchLogs(prefix)
	if err != nil {
		return measure{}, err
	}
	return measure{seconds: float64(seconds), operations: h.n, latency: h, tps: &tps}, nil
}

// readPgbenchLogs reads pgbench's per-transaction logs (third field: latency in µs) and removes them.
func readPgbenchLogs(prefix string) (*histogram, error) {
	paths, _ := filepath.Glob(prefix + ".*")
	if len(paths) == 0 {
		return nil, fmt.Errorf("pgbench wrote no transaction log at %s.*", prefix)
	}
	h := &histogram{}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		scanner := bufio.NewScanner(f)
		for scanner.Scan() {
			fields := strings.Fields(scanner.Text())
			if len(fields) < 3 {
				continue
			}
			micros, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil {
				continue
			}
			h.record(time.Duration(micros) * time.Microsecond)
		}
		_ = f.Close()
		_ = os.Remove(path)
	}
	return h, nil
}

// pgbenchPassTargets starts a pass of the pgbench profiles: it lists the scratch database's files
// as they are now and drops them from the page cache. The database grows as pgbench updates and
// inserts (new segment files too, and a vacuum may truncate or remove some), so every pass drops,
// and the features switched on for it manage and budget, the files as they are at its start, not
// as they were after pgbench -i. The budget is the request's, or else the files' total size.
func (r *runner) pgbenchPassTargets(dir string) (Targets, error) {
	files, size, err := regularFilesIn(dir)
	if err != nil {
		return Targets{}, err
	}
	for _, f := range files {
		dropFilePages(f)
	}
	budget := r.req.ReadCacheBudgetBytes
	if budget == 0 {
		budget = size
	}
	return Targets{DataFiles: files, BudgetBytes: budget}, nil
}

// regularFilesIn lists a directory's regular files and their total size.
func regularFilesIn(dir string) ([]string, int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("list the scratch database's files: %w", err)
	}
	var files []string
	var total int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		files = append(files, filepath.Join(dir, e.Name()))
		total += info.Size()
	}
	return files, total, nil
}

// dropFilePages evicts one file's clean pages (best effort: PostgreSQL may be writing it).
func dropFilePages(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	_ = dropPages(f)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
