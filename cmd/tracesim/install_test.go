package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestGoInstallVersion is `go install github.com/tracesim/tracesim/cmd/tracesim@COMMIT`
// then `tracesim --version`, offline: the commit at HEAD is served as a
// module from a file proxy (what a module proxy serves for a commit: its
// pseudo-version's .info, .mod and the zip git archive writes), the
// dependencies from the module cache's download directory (the same
// layout), into a temporary GOPATH. It checks that the binary reports
// the pseudo-version, which names the commit. It tests HEAD, not
// uncommitted changes, and takes a minute or two (a fresh module cache
// and a full build): -short skips it.
func TestGoInstallVersion(t *testing.T) {
	goBin, repo := buildSetup(t, "builds tracesim with go install")
	rev, err := gitOut(repo, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	stamp, err := gitOut(repo, "-c", "log.showSignature=false", "show", "-s", "--format=%cd", "--date=format-local:%Y%m%d%H%M%S", rev)
	if err != nil {
		t.Fatal(err)
	}
	modCache, err := exec.Command(goBin, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/tracesim/tracesim"
	version := "v0.0.0-" + stamp + "-" + rev[:12]

	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	dir := filepath.Join(proxy, module, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := gitOut(repo, "archive", "--format=zip", "--prefix="+module+"@"+version+"/",
		"-o", filepath.Join(dir, version+".zip"), rev); err != nil {
		t.Fatal(err)
	}
	mod, err := gitOut(repo, "show", rev+":go.mod")
	if err != nil {
		t.Fatal(err)
	}
	ts := stamp[:4] + "-" + stamp[4:6] + "-" + stamp[6:8] + "T" + stamp[8:10] + ":" + stamp[10:12] + ":" + stamp[12:] + "Z"
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`, version, ts)
	for name, data := range map[string]string{
		version + ".mod":  mod + "\n",
		version + ".info": info,
		rev + ".info":     info, // what the go command asks for @COMMIT
		"list":            version + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	gopath, gobin := filepath.Join(tmp, "gopath"), filepath.Join(tmp, "bin")
	cmd := exec.Command(goBin, "install", module+"/cmd/tracesim@"+rev)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(),
		"GOPATH="+gopath, "GOBIN="+gobin, "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"),
		// Only files: no network, whatever the machine's settings.
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(strings.TrimSpace(string(modCache)), "cache", "download")),
		"GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=", "GOWORK=off", "GOTOOLCHAIN=local",
		// -modcacherw: the temporary module cache must be removable.
		"GOFLAGS=-mod=mod -modcacherw",
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	bin := filepath.Join(gobin, "tracesim")
	want := "tracesim " + version + "\n"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("tracesim %s: %v", args[0], err)
		}
		if string(out) != want {
			t.Errorf("tracesim %s = %q, want %q", args[0], out, want)
		}
	}
}

// buildSetup skips a test that builds tracesim under -short (saying why),
// without a go command or outside a git checkout, and returns the go
// command and the checkout's top directory.
func buildSetup(t *testing.T, why string) (goBin, repo string) {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	repo, err = gitOut(".", "rev-parse", "--show-toplevel")
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	return goBin, repo
}

// gitOut runs git in dir and returns its trimmed output.
func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	if err != nil {
		var x *exec.ExitError
		if errors.As(err, &x) {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, x.Stderr)
		}
		return "", fmt.Errorf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// TestVersionFrom covers the versions a binary can report.
func TestVersionFrom(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-11-26T09:15:17Z"}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "38a7e39629ce1a28988f5a1d092d499411fc2104"
	const unrecorded = "devel (no commit recorded: built with -buildvcs=false or in a git worktree)"
	tests := []struct {
		name    string
		ldflags string
		info    *debug.BuildInfo
		want    string
	}{
		{"-ldflags -X main.version", "1.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.1.0"}}, "1.2.0"},
		{"go install @tag", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.1.0", Sum: "h1:x"}}, "v1.1.0"},
		{"go install @commit", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126091517-38a7e39629ce"}}, "v0.0.0-20261126091517-38a7e39629ce"},
		{"go build in a modified checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126091517-38a7e39629ce+dirty"}, Settings: vcs(rev, "true")},
			"devel (38a7e39, 2026-11-26, modified)"},
		{"go build in a clean checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126091517-38a7e39629ce"}, Settings: vcs(rev, "false")},
			"devel (38a7e39, 2026-11-26)"},
		{"go build after a pre-release tag", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0-rc.1.0.20261126091517-38a7e39629ce"}, Settings: vcs(rev, "false")},
			"devel (38a7e39, 2026-11-26)"},
		{"go build at a tag", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: vcs(rev, "false")}, "v1.2.0 (38a7e39, 2026-11-26)"},
		{"go build at a tag, modified", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0+dirty"}, Settings: vcs(rev, "true")}, "v1.2.0 (38a7e39, 2026-11-26, modified)"},
		{"go before 1.24: no module version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, "devel (38a7e39, 2026-11-26, modified)"},
		{"no commit time", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}}}, "devel (38a7e39)"},
		{"-buildvcs=false or a worktree", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, unrecorded},
		{"no build info", "dev", nil, unrecorded},
	}
	for _, tc := range tests {
		if got := versionFrom(tc.ldflags, tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestBuildVersion is `go build ./cmd/tracesim` in a git checkout, then
// `tracesim --version`: the working tree (tracked and untracked files, so
// uncommitted changes are what is tested) is copied into a fresh repository
// with one commit of a known date, a real .git directory (the go command
// records no commit in a worktree, whose .git is a file) and -buildvcs=true
// whatever GOFLAGS says. It builds three times (clean, tagged, modified);
// -trimpath lets the build cache serve every compile after the first run,
// and -short skips it.
func TestBuildVersion(t *testing.T) {
	goBin, repo := buildSetup(t, "builds tracesim")
	files, err := gitOut(repo, "ls-files", "--cached", "--others", "--exclude-standard")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	for _, name := range strings.Split(files, "\n") {
		data, err := os.ReadFile(filepath.Join(repo, name))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted but not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2026-11-26T09:15:17Z", "GIT_AUTHOR_DATE=2026-11-26T09:15:17Z",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "snapshot")
	rev := git("rev-parse", "--short=7", "HEAD")

	bin := filepath.Join(tmp, "tracesim")
	version := func() string {
		t.Helper()
		cmd := exec.Command(goBin, "build", "-trimpath", "-buildvcs=true", "-o", bin, "./cmd/tracesim")
		cmd.Dir = src
		// Not GOPROXY=off: the go command then takes no tag as the main module's version.
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true", "GOWORK=off", "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatalf("tracesim --version: %v", err)
		}
		return string(out)
	}
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"clean checkout", func() {}, "tracesim devel (" + rev + ", 2026-11-26)\n"},
		{"at a tag", func() { git("tag", "v1.2.0") }, "tracesim v1.2.0 (" + rev + ", 2026-11-26)\n"},
		{"uncommitted file", func() {
			git("tag", "-d", "v1.2.0")
			if err := os.WriteFile(filepath.Join(src, "NOTES"), []byte("wip\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "tracesim devel (" + rev + ", 2026-11-26, modified)\n"},
	}
	for _, s := range steps {
		s.do()
		if got := version(); got != s.want {
			t.Errorf("%s: tracesim --version = %q, want %q", s.name, got, s.want)
		}
	}
}
