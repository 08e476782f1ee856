package amtrain

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/cli"
)

// progress draws a one-line progress bar (instances done, rate, ETA, running
// loss) on w, at most a few times a second, when w is a terminal; to a file
// or a pipe it writes one whole line per progressSteps-th of the run instead.
// A nil writer draws nothing.
type progress struct {
	w        io.Writer
	terminal bool
	total    int64
	done     int64
	start    time.Time
	last     time.Time
	loss     float64 // exponential moving average of the batch mean loss
	haveLoss bool
	drawn    bool
	step     int64 // progress lines written (not a terminal)
	epoch    string
}

// progressSteps is the number of progress lines a run writes to a file.
const progressSteps = 10

func newProgress(w io.Writer, total int64) *progress {
	now := time.Now()
	return &progress{w: w, terminal: cli.IsTerminal(w), total: max(total, 1), start: now}
}

func (p *progress) add(n int64, batchLoss float64, epoch, epochs int) {
	p.done += n
	if p.haveLoss {
		p.loss = 0.98*p.loss + 0.02*batchLoss
	} else {
		p.loss, p.haveLoss = batchLoss, true
	}
	p.epoch = fmt.Sprintf("%d/%d", epoch, epochs)
	switch now := time.Now(); {
	case p.w == nil:
	case !p.terminal:
		if s := progressSteps * min(p.done, p.total) / p.total; s > p.step {
			p.step = s
			fmt.Fprintln(p.w, p.status(now, false))
		}
	case now.Sub(p.last) >= 250*time.Millisecond || p.done >= p.total:
		p.last = now
		p.draw(now)
	}
}

// status formats the progress at now, with the bar itself when bar is set.
func (p *progress) status(now time.Time, bar bool) string {
	el := now.Sub(p.start).Seconds()
	rate := float64(p.done) / max(el, 1e-9)
	frac := min(float64(p.done)/float64(p.total), 1)
	eta := "?"
	if rate > 0 {
		eta = (time.Duration(float64(p.total-p.done)/rate) * time.Second).Round(time.Second).String()
	}
	const width = 30
	fill, b := int(frac*width), ""
	if bar {
		b = " [" + strings.Repeat("=", fill) + strings.Repeat(" ", width-fill) + "]"
	}
	return fmt.Sprintf("epoch %s%s %5.1f%% %7.0f inst/s ETA %-8s loss %.4f", p.epoch, b, 100*frac, rate, eta, p.loss)
}

func (p *progress) draw(now time.Time) {
	fmt.Fprintf(p.w, "\r%s ", p.status(now, true))
	p.drawn = true
}

// pause ends the bar's line so a log line can follow.
func (p *progress) pause() {
	if p.w != nil && p.terminal && p.drawn {
		p.draw(time.Now())
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func (p *progress) finish() { p.pause() }
