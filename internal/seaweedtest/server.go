package seaweedtest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Environment variables that name the binary and make its absence fatal.
const (
	EnvBinary  = "AGENTTRACE_SEAWEEDFS"
	EnvRequire = "AGENTTRACE_REQUIRE_SEAWEEDFS"
)

// Region is the region clients name; SeaweedFS accepts any.
const Region = "us-east-1"

// startTimeout bounds a start: `weed mini` is ready in about 5 s on an
// idle machine, its filer taking most of it.
const startTimeout = 90 * time.Second

// Server is a running `weed mini` with one bucket.
type Server struct {
	// Endpoint is the S3 endpoint, http://127.0.0.1:PORT.
	Endpoint string
	// Bucket is the bucket created at start.
	Bucket string
	// Dir holds the server's data; a restart keeps it.
	Dir string
	// Log is the file the server's output goes to.
	Log string

	bin    string
	ports  ports
	client *http.Client
	proc   *process
}

// process is one run of the server.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // of Wait, once done is closed
}

// Binary returns the path of the weed binary from AGENTTRACE_SEAWEEDFS,
// skipping the test when it is not set (failing it when
// AGENTTRACE_REQUIRE_SEAWEEDFS=1).
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(EnvBinary)
	if bin == "" {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s=1 but %s is not set; build SeaweedFS with deploy/seaweedfs/build.sh", EnvRequire, EnvBinary)
		}
		t.Skipf("%s is not set; %s=$(deploy/seaweedfs/build.sh) runs this test", EnvBinary, EnvBinary)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s: %v", EnvBinary, err)
	}
	return bin
}

// Start starts a server with the bucket named bucket on free loopback
// ports and waits until the bucket answers a listing. It is stopped at
// the test's cleanup.
func Start(t testing.TB, bucket string) *Server {
	t.Helper()
	root := t.TempDir()
	s := &Server{
		Bucket: bucket,
		Dir:    filepath.Join(root, "data"),
		Log:    filepath.Join(root, "weed.log"),
		bin:    Binary(t),
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{}},
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.halt(t)
		s.client.CloseIdleConnections()
	})
	// A port picked free may be taken by another process before the
	// server binds it: then the server exits, and a new set is tried.
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if s.ports, err = freePorts(); err != nil {
			t.Fatal(err)
		}
		s.Endpoint = "http://" + s.ports.addr(s.ports.s3)
		if err = s.run(); err == nil {
			return s
		}
		t.Logf("weed mini, attempt %d: %v", attempt+1, err)
	}
	s.dumpLog(t)
	t.Fatalf("weed mini did not start: %v", err)
	return nil
}

// URL returns the gocloud URL of the bucket with the key prefix prefix
// ("" for none), as the exporter's `bucket:` setting takes it.
func (s *Server) URL(prefix string) string {
	q := url.Values{}
	q.Set("endpoint", s.Endpoint)
	q.Set("region", Region)
	q.Set("use_path_style", "true")
	u := url.URL{Scheme: "s3", Host: s.Bucket, Path: "/" + strings.Trim(prefix, "/"), RawQuery: q.Encode()}
	if prefix == "" {
		u.Path = ""
	}
	return u.String()
}

// ClientEnv is the environment a client process (the collector, the CLI)
// needs besides the URL: the AWS SDK signs every request, so it must find
// credentials, and SeaweedFS without identities accepts any; the instance
// metadata service is not asked.
func ClientEnv() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=agenttrace-test",
		"AWS_SECRET_ACCESS_KEY=agenttrace-test",
		"AWS_REGION=" + Region,
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

// Stop stops the server with SIGTERM and waits for it to exit; Restart
// starts it again on the same ports and data.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if s.proc == nil {
		t.Fatal("seaweedtest: Stop of a server that is not running")
	}
	s.halt(t)
}

// Restart starts a stopped server again on the same ports and data and
// waits until it is ready.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if s.proc != nil {
		t.Fatal("seaweedtest: Restart of a running server")
	}
	if err := s.run(); err != nil {
		s.dumpLog(t)
		t.Fatalf("weed mini did not start again: %v", err)
	}
}

// Pause stops the server's process (SIGSTOP) and waits until it is
// stopped: connections are accepted by the kernel but nothing answers, as
// a server that hangs. Resume lets it go on (SIGCONT).
func (s *Server) Pause(t testing.TB) {
	t.Helper()
	s.signal(t, syscall.SIGSTOP)
	deadline := time.Now().Add(10 * time.Second)
	for !stopped(s.proc.cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("seaweedtest: the server did not stop within 10s of SIGSTOP")
		}
		time.Sleep(time.Millisecond)
	}
}

// Resume continues a paused server.
func (s *Server) Resume(t testing.TB) { s.signal(t, syscall.SIGCONT) }

func (s *Server) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	if s.proc == nil {
		t.Fatalf("seaweedtest: %v to a server that is not running", sig)
	}
	if err := s.proc.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("seaweedtest: %v: %v", sig, err)
	}
}

// run starts the process and waits until the bucket lists, or the
// process exits, or startTimeout passes.
func (s *Server) run() error {
	logf, err := os.OpenFile(s.Log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(s.bin, s.args()...)
	cmd.Env = serverEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	s.proc = p
	deadline := time.Now().Add(startTimeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !s.ready() {
		select {
		case <-p.done:
			s.proc = nil
			return fmt.Errorf("exited before ready: %w", errors.Join(p.err, errors.New("see "+s.Log)))
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("not ready within %v (see %s)", startTimeout, s.Log)
		}
	}
	return nil
}

// probeBucket is a bucket of its own made at start, where readiness is
// probed by a write and a read, so that the test's bucket holds only what
// the test wrote.
const probeBucket = "seaweedtest-probe"

// ready reports whether the bucket answers a listing (the S3 gateway is
// up, the bucket made at start exists) and an object can be written and
// read back (a volume server is registered: after a restart, listing
// works before reads of the data kept do).
func (s *Server) ready() bool {
	ok := func(req *http.Request, err error) bool {
		if err != nil {
			return false
		}
		resp, err := s.client.Do(req)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	probe := s.Endpoint + "/" + probeBucket + "/ready"
	return ok(http.NewRequest(http.MethodGet, s.Endpoint+"/"+s.Bucket+"?list-type=2&max-keys=1", nil)) &&
		ok(http.NewRequest(http.MethodPut, probe, strings.NewReader("ready"))) &&
		ok(http.NewRequest(http.MethodGet, probe, nil))
}

// halt stops a running server: SIGTERM (after SIGCONT, in case it is
// paused), then SIGKILL if it has not exited within 30 s.
func (s *Server) halt(t testing.TB) {
	p := s.proc
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Logf("weed mini did not exit within 30s of SIGTERM; killing it")
		s.kill()
	}
	s.proc = nil
	s.removeSockets()
}

// removeSockets removes the Unix sockets the server left in /tmp (a
// fixed place, named by port: the admin's outlives a clean stop).
func (s *Server) removeSockets() {
	p := s.ports
	for _, port := range []int{p.master, p.masterGRPC, p.volume, p.volumeGRPC, p.filer, p.filerGRPC, p.s3, p.s3GRPC, p.admin, p.adminGRPC} {
		socks, _ := filepath.Glob(filepath.Join("/tmp", "seaweedfs-*-"+itoa(port)+".sock"))
		for _, sock := range socks {
			_ = os.Remove(sock)
		}
	}
}

// kill ends the process with SIGKILL and waits for it.
func (s *Server) kill() {
	if s.proc == nil {
		return
	}
	_ = s.proc.cmd.Process.Kill()
	<-s.proc.done
	s.proc = nil
}

func (s *Server) dumpLog(t testing.TB) {
	b, _ := os.ReadFile(s.Log)
	t.Logf("weed log (%s):\n%s", s.Log, b)
}

// args are `weed mini`'s arguments: loopback only, every port chosen,
// what the tests do not use (WebDAV, Iceberg, Lance, the admin UI, the
// legacy admin port, telemetry) off. The number of volumes is set (their
// space is not preallocated): left to itself, `weed mini` allows as many
// as the disk's free space holds at 128 MB each, on a shared machine's
// nearly full disk one, and the bucket after the probe's then has none
// (every PUT a 500).
func (s *Server) args() []string {
	p := s.ports
	return []string{
		"mini",
		"-dir=" + s.Dir,
		"-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-bucket=" + s.Bucket + "," + probeBucket,
		"-master.port=" + itoa(p.master), "-master.port.grpc=" + itoa(p.masterGRPC),
		"-master.telemetry=false",
		"-volume.port=" + itoa(p.volume), "-volume.port.grpc=" + itoa(p.volumeGRPC),
		"-filer.port=" + itoa(p.filer), "-filer.port.grpc=" + itoa(p.filerGRPC),
		"-s3.port=" + itoa(p.s3), "-s3.port.grpc=" + itoa(p.s3GRPC),
		"-s3.port.iceberg=0", "-s3.port.lance=0",
		"-admin.ui=false", "-admin.port=" + itoa(p.admin), "-admin.port.grpc=" + itoa(p.adminGRPC),
		"-admin.port.legacy=0",
		"-webdav=false",
		"-volume.max=16",
	}
}

// serverEnv is the test's environment without what would give the server
// identities (then it would refuse anonymous requests): `weed mini` makes
// a user of AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY and buckets of
// S3_BUCKET.
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AWS_") || strings.HasPrefix(k, "S3_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func itoa(n int) string { return strconv.Itoa(n) }

// ports are the server's listening ports.
type ports struct {
	master, masterGRPC, volume, volumeGRPC, filer, filerGRPC, s3, s3GRPC, admin, adminGRPC int
}

func (p ports) addr(port int) string { return net.JoinHostPort("127.0.0.1", itoa(port)) }

// freePorts picks ten distinct ports nothing listens on: all are held
// open together, so none is picked twice, then released for the server.
func freePorts() (ports, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ns [10]int
	for i := range ns {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return ports{}, fmt.Errorf("seaweedtest: free port: %w", err)
		}
		ls = append(ls, l)
		ns[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports{ns[0], ns[1], ns[2], ns[3], ns[4], ns[5], ns[6], ns[7], ns[8], ns[9]}, nil
}
