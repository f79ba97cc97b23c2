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
	if testing.Short() {
		t.Skip("builds tracesim with go install")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	repo, err := gitOut(".", "rev-parse", "--show-toplevel")
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
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
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "38a7e39629ce1a28988f5a1d092d499411fc2104"
	tests := []struct {
		name    string
		ldflags string
		info    *debug.BuildInfo
		want    string
	}{
		{"-ldflags -X main.version", "1.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.1.0"}}, "1.2.0"},
		{"go install @tag", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.1.0", Sum: "h1:x"}}, "v1.1.0"},
		{"go install @commit", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126091517-38a7e39629ce"}}, "v0.0.0-20261126091517-38a7e39629ce"},
		{"go build in a checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126091517-38a7e39629ce+dirty"}, Settings: vcs(rev, "true")},
			"v0.0.0-20261126091517-38a7e39629ce+dirty"},
		{"-buildvcs with no module version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, "devel (38a7e39629ce+dirty)"},
		{"clean checkout, no module version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, "devel (38a7e39629ce)"},
		{"-buildvcs=false", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"no build info", "dev", nil, "devel"},
	}
	for _, tc := range tests {
		if got := versionFrom(tc.ldflags, tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
