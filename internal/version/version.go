// Package version tells which text2vec-am this binary is: the version of the
// module as the Go toolchain recorded it at build time (runtime/debug build
// info), or the one a release build sets with -ldflags.
//
// The server's /meta, its t2vam_build_info metric, the Weaviate module's meta
// and `text2vec-am version` all report String.
package version

import (
	"runtime"
	"runtime/debug"
)

// Module is the Go module path of text2vec-am, whose version String reports.
const Module = "github.com/text2vec-am/text2vec-am"

// Version is set by release builds, and only there, with
//
//	go build -ldflags "-X github.com/text2vec-am/text2vec-am/internal/version.Version=v0.11.0"
//
// (the Dockerfile does so from its VERSION build argument).
// When it is not empty, String returns it instead of the build info. Nothing
// assigns it at run time.
var Version string

// Devel is the version of a build from a source tree that the toolchain did
// not stamp (go run, go test, -buildvcs=false, a tree without version control).
const Devel = "(devel)"

// Info is what a binary says about its build.
type Info struct {
	Version   string // String()
	GoVersion string // the toolchain that built the binary, e.g. "go1.26.8"
	OS, Arch  string // GOOS and GOARCH
}

// Get returns the version, the Go version and the platform of this binary.
func Get() Info {
	return Info{Version: String(), GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

// String returns the version of text2vec-am in this binary: Version when a
// release build set it; else the module's version from the build info, which
// is its tag (go install …@v0.11.0, or go build in a checkout at a tag), a
// pseudo-version (go build in a checkout, "+dirty" with uncommitted changes)
// or Devel, followed by "-" and the commit's first 12 hex digits when the
// toolchain recorded one, and "+dirty" for a modified tree.
func String() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Devel
	}
	return fromBuildInfo(bi)
}

// fromBuildInfo is the version of Module in bi: the main module's, or, when
// another program (a Weaviate built with the module) links it, its
// dependency entry's.
func fromBuildInfo(bi *debug.BuildInfo) string {
	mod := &bi.Main
	if mod.Path != Module {
		mod = nil
		for _, d := range bi.Deps {
			if d.Path == Module {
				mod = d
				break
			}
		}
		if mod == nil {
			return Devel
		}
		if mod.Replace != nil { // a local source tree: its version is not known
			return Devel
		}
		return orDevel(mod.Version)
	}
	if v := orDevel(mod.Version); v != Devel {
		return v
	}
	return Devel + vcsSuffix(bi.Settings)
}

func orDevel(v string) string {
	if v == "" {
		return Devel
	}
	return v
}

// vcsSuffix is "-" and the first 12 digits of vcs.revision, plus "+dirty"
// when vcs.modified is true; "" without a revision.
func vcsSuffix(settings []debug.BuildSetting) string {
	var rev, modified string
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return ""
	}
	s := "-" + rev[:min(12, len(rev))]
	if modified == "true" {
		s += "+dirty"
	}
	return s
}
