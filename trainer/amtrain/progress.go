package amtrain

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress draws a one-line progress bar (instances done, rate, ETA, running
// loss) on w, at most a few times a second. A nil writer draws nothing.
type progress struct {
	w        io.Writer
	total    int64
	done     int64
	start    time.Time
	last     time.Time
	loss     float64 // exponential moving average of the batch mean loss
	haveLoss bool
	drawn    bool
	epoch    string
}

func newProgress(w io.Writer, total int64) *progress {
	now := time.Now()
	return &progress{w: w, total: max(total, 1), start: now}
}

func (p *progress) add(n int64, batchLoss float64, epoch, epochs int) {
	p.done += n
	if p.haveLoss {
		p.loss = 0.98*p.loss + 0.02*batchLoss
	} else {
		p.loss, p.haveLoss = batchLoss, true
	}
	p.epoch = fmt.Sprintf("%d/%d", epoch, epochs)
	if p.w == nil {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= 250*time.Millisecond || p.done >= p.total {
		p.last = now
		p.draw(now)
	}
}

func (p *progress) draw(now time.Time) {
	el := now.Sub(p.start).Seconds()
	rate := float64(p.done) / max(el, 1e-9)
	frac := min(float64(p.done)/float64(p.total), 1)
	const width = 30
	fill := int(frac * width)
	eta := "?"
	if rate > 0 {
		eta = (time.Duration(float64(p.total-p.done)/rate) * time.Second).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\repoch %s [%s%s] %5.1f%% %7.0f inst/s ETA %-8s loss %.4f ",
		p.epoch, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*frac, rate, eta, p.loss)
	p.drawn = true
}

// pause ends the bar's line so a log line can follow.
func (p *progress) pause() {
	if p.w != nil && p.drawn {
		p.draw(time.Now())
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func (p *progress) finish() { p.pause() }
