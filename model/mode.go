package model

import "fmt"

// Mode selects the variant of the model.
type Mode uint8

const (
	// ModeAM is Attentive Mimicking: form and context combined by a gate,
	// contexts weighted by their reliability ρ.
	ModeAM Mode = iota
	// ModeFCM is the form-context model: like AM, but the context embedding is
	// the mean of all context words (each context weighted by its length), as
	// the reference implementation does.
	ModeFCM
	// ModeForm uses the surface form only: v = v_form.
	ModeForm
	// ModeContext uses the contexts only, with AM's attention: v = A·v_ctx
	// (the paper's AM-ctx).
	ModeContext
	// ModeFCMContext uses the contexts only, with FCM's weighting: v = A·v_ctx
	// (the paper's FCM-ctx).
	ModeFCMContext
)

var modeNames = [...]string{"am", "fcm", "form", "context", "fcm-context"}

// ParseMode parses "am", "fcm", "form", "context" or "fcm-context".
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if s == n {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q (want am, fcm, form, context or fcm-context)", s)
}

// UsesForm reports whether the mode embeds a word's form (am, fcm, form).
func (m Mode) UsesForm() bool { return m == ModeAM || m == ModeFCM || m == ModeForm }

// String returns the name ParseMode accepts.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// valid reports whether m is a known mode.
func (m Mode) valid() bool { return int(m) < len(modeNames) }

// usesContext reports whether the contexts enter the output.
func (m Mode) usesContext() bool { return m != ModeForm }

// attentive reports whether contexts are weighted by AM's reliability.
func (m Mode) attentive() bool { return m == ModeAM || m == ModeContext }

// Gated reports whether form and context are mixed by the gate α (the modes
// that can have count buckets, Config.CountBuckets).
func (m Mode) Gated() bool { return m == ModeAM || m == ModeFCM }
