package corpus

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	pngenc "image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// encodeUTF16 returns text in UTF-16 with its byte order mark, little- or
// big-endian.
func encodeUTF16(text string, big bool) []byte {
	out := []byte{0xff, 0xfe}
	if big {
		out = []byte{0xfe, 0xff}
	}
	for _, c := range utf16.Encode([]rune(text)) {
		if big {
			out = append(out, byte(c>>8), byte(c))
		} else {
			out = append(out, byte(c), byte(c>>8))
		}
	}
	return out
}

// encodeUTF32LE returns text in little-endian UTF-32 with its byte order mark.
func encodeUTF32LE(text string) []byte {
	out := []byte{0xff, 0xfe, 0, 0}
	for _, r := range text {
		out = append(out, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	return out
}

// A UTF-16 or UTF-32 text file (with its byte order mark) is refused as
// text in that encoding, with how to convert it, not as "a binary file".
func TestUTF16CorpusNamedAsSuch(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("the daemon restarts the kernel module\n", 100)
	for name, c := range map[string]struct {
		content []byte
		enc     string
	}{
		"le16.txt": {encodeUTF16(text, false), "UTF-16"},
		"be16.txt": {encodeUTF16(text, true), "UTF-16"},
		"le32.txt": {encodeUTF32LE(text), "UTF-32"},
	} {
		p := filepath.Join(dir, name)
		writeFile(t, p, c.content)
		_, err := Read(context.Background(), []string{p}, DefaultOptions())
		if !errors.Is(err, ErrNotText) || err == nil || !strings.Contains(err.Error(), p+": not UTF-8 text: it is "+c.enc+" text") ||
			!strings.Contains(err.Error(), "iconv -f "+c.enc+" -t UTF-8 "+p) || strings.Contains(err.Error(), "binary") {
			t.Errorf("%s: err = %v, want it refused as %s text with the iconv command", name, err, c.enc)
		}
	}
}

// Text in a single-byte encoding (Latin-1, Windows-1252), whose accented
// letters are invalid UTF-8, is refused as text in another encoding, naming
// the file and how to convert it; text starting with UTF-8's byte order mark
// is read.
func TestLatin1CorpusNamedAsSuch(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fr.txt")
	writeFile(t, p, []byte(strings.Repeat("le d\xe9mon red\xe9marre le module du noyau \xe0 l'\xe9t\xe9\n", 100)))
	_, err := Read(context.Background(), []string{p}, DefaultOptions())
	if !errors.Is(err, ErrNotText) || err == nil || !strings.Contains(err.Error(), p+": not UTF-8 text") ||
		!strings.Contains(err.Error(), "looks like text in another encoding") ||
		!strings.Contains(err.Error(), "iconv -f windows-1252 -t UTF-8 "+p) {
		t.Errorf("Latin-1 corpus: err = %v, want it refused as text in another encoding with the iconv command", err)
	}
	bom := filepath.Join(dir, "bom.txt")
	writeFile(t, bom, []byte("\xef\xbb\xbf"+strings.Repeat("the daemon restarts the kernel module\n", 100)))
	if _, err := Read(context.Background(), []string{bom}, DefaultOptions()); err != nil {
		t.Errorf("UTF-8 with a byte order mark: %v, want it read", err)
	}
}

// encodeUnmarked returns text in enc (UTF-16LE, UTF-16BE, UTF-32LE or
// UTF-32BE) without a byte order mark.
func encodeUnmarked(text, enc string) []byte {
	var order binary.AppendByteOrder = binary.LittleEndian
	if strings.HasSuffix(enc, "BE") {
		order = binary.BigEndian
	}
	var out []byte
	if strings.HasPrefix(enc, "UTF-32") {
		for _, r := range text {
			out = order.AppendUint32(out, uint32(r))
		}
		return out
	}
	for _, c := range utf16.Encode([]rune(text)) {
		out = order.AppendUint16(out, c)
	}
	return out
}

// UTF-16 and UTF-32 text without a byte order mark (as some Windows tools
// write it), in Latin or another script, plain or gzip'd, is refused as
// text in that encoding with how to convert it, not as "a binary file".
func TestUnmarkedUTF16CorpusNamedAsSuch(t *testing.T) {
	dir := t.TempDir()
	texts := map[string]string{
		"en":    strings.Repeat("the daemon restarts the kernel module\r\n", 100),
		"ru":    strings.Repeat("демон перезапускает модуль ядра, 2 раза\n", 100),
		"emoji": strings.Repeat("the build 🚀 passed\n", 100),
	}
	for lang, text := range texts {
		for _, enc := range []string{"UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"} {
			for _, gz := range []bool{false, true} {
				p := filepath.Join(dir, lang+"-"+enc+".txt")
				content := encodeUnmarked(text, enc)
				command := "iconv -f " + enc + " -t UTF-8 " + p + " > " + p + ".utf8"
				if gz {
					command = "gzip -dc " + p + ".gz | iconv -f " + enc + " -t UTF-8 | gzip > " + p + ".utf8.gz"
					p += ".gz"
					content = gzipped(t, string(content))
				}
				writeFile(t, p, content)
				_, err := Read(context.Background(), []string{p}, DefaultOptions())
				if !errors.Is(err, ErrNotText) || err == nil ||
					!strings.Contains(err.Error(), p+": not UTF-8 text: it looks like "+enc+" text without a byte order mark") ||
					!strings.Contains(err.Error(), command) ||
					strings.Contains(err.Error(), "binary") {
					t.Errorf("%s: err = %v, want it refused as %s text with the iconv command", p, err, enc)
				}
			}
		}
	}
}

// The first block of a UTF-16 file can end inside a surrogate pair, or at
// an odd byte: what it holds whole decides.
func TestUnmarkedUTF16CutAtTheEnd(t *testing.T) {
	text := encodeUnmarked(strings.Repeat("emoji 🚀 ", 40), "UTF-16LE")
	for cut := len(text) - 4; cut <= len(text); cut++ {
		if got := unmarkedUnicode(text[:cut]); got != "UTF-16LE" {
			t.Errorf("cut at %d of %d bytes: %q, want UTF-16LE", cut, len(text), got)
		}
	}
}

// Binary data that holds NUL bytes is still called binary, not UTF-16 or
// UTF-32 text: random bytes, gzip data read as it is, an executable, a PNG
// image, arrays of float32 and int32, zeros; and so is UTF-16 text too
// short to tell, or with a NUL character in it.
func TestBinaryNotTakenForUnmarkedUnicode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, TextCheckBytes)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	elf, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	var png bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = byte(i / 64)
	}
	if err := pngenc.Encode(&png, img); err != nil {
		t.Fatal(err)
	}
	var floats, smallFloats, ints []byte
	for i := range 4096 {
		floats = binary.LittleEndian.AppendUint32(floats, math.Float32bits(float32(rng.NormFloat64())))
		smallFloats = binary.LittleEndian.AppendUint32(smallFloats, math.Float32bits(float32(i)*0.25))
		ints = binary.LittleEndian.AppendUint32(ints, uint32(i))
	}
	cases := map[string][]byte{
		"random":             random,
		"gzip read raw":      gzipped(t, strings.Repeat("the daemon restarts the kernel module\n", 2000)),
		"gzip of UTF-16 raw": gzipped(t, string(encodeUnmarked(strings.Repeat("the daemon restarts\n", 2000), "UTF-16LE"))),
		"this executable":    elf[:min(len(elf), TextCheckBytes)],
		"ELF header":         []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00\x01\x00\x00\x00"),
		"PNG":                png.Bytes(),
		"float32 normal":     floats,
		"float32 counting":   smallFloats,
		"int32 counting":     ints,
		"zeros":              make([]byte, 4096),
		"short UTF-16":       encodeUnmarked("hello world\n", "UTF-16LE"),
		"UTF-16 with a NUL":  encodeUnmarked(strings.Repeat("the daemon\x00restarts\n", 50), "UTF-16LE"),
		"UTF-16 with ESC":    encodeUnmarked(strings.Repeat("the daemon \x1b[1mrestarts\n", 50), "UTF-16BE"),
	}
	for name, content := range cases {
		if !bytes.Contains(content, []byte{0}) {
			t.Fatalf("%s: no NUL byte: not a case of the check", name)
		}
		if got := unmarkedUnicode(content); got != "" {
			t.Errorf("%s: taken for %s text", name, got)
		}
		err := checkHead("f", false, content[:min(len(content), TextCheckBytes)])
		if !errors.Is(err, ErrNotText) || !strings.Contains(err.Error(), "as in a binary file") {
			t.Errorf("%s: err = %v, want it called binary", name, err)
		}
	}
}

// A gzip'd corpus file in another encoding is refused with a command that
// converts what it holds: iconv run on the compressed bytes would fail.
func TestGzipCorpusInAnotherEncodingConverted(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("the daemon restarts the kernel module\r\n", 100)
	for name, c := range map[string]struct {
		content []byte
		enc     string
	}{
		"bom.txt.gz":      {encodeUTF16(text, false), "UTF-16"},
		"unmarked.txt.gz": {encodeUnmarked(text, "UTF-16BE"), "UTF-16BE"},
		"latin1.txt.gz": {[]byte(strings.Repeat("le d\xe9mon red\xe9marre le module du noyau \xe0 l'\xe9t\xe9\n", 100)),
			"windows-1252"},
		"gzip-named.txt": {encodeUnmarked(text, "UTF-16LE"), "UTF-16LE"},
	} {
		p := filepath.Join(dir, name)
		writeFile(t, p, gzipped(t, string(c.content)))
		_, err := Read(context.Background(), []string{p}, DefaultOptions())
		want := "gzip -dc " + p + " | iconv -f " + c.enc + " -t UTF-8 | gzip > " + strings.TrimSuffix(p, ".gz") +
			".utf8.gz"
		if !errors.Is(err, ErrNotText) || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want the command %q", name, err, want)
		}
	}
	p := filepath.Join(dir, "plain.txt")
	writeFile(t, p, encodeUnmarked(text, "UTF-16LE"))
	if _, err := Read(context.Background(), []string{p}, DefaultOptions()); err == nil ||
		!strings.Contains(err.Error(), "(iconv -f UTF-16LE -t UTF-8 "+p+" > "+p+".utf8)") {
		t.Errorf("a plain file: err = %v, want iconv run on it", err)
	}
}
