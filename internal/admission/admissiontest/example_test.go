package admissiontest_test

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/admission"
	"github.com/text2vec-am/text2vec-am/internal/admission/admissiontest"
)

// A handler's deadlines reach a Recorder as they would a connection.
func ExampleRecorder() {
	w := admissiontest.NewRecorder()
	rc := http.NewResponseController(w)
	fmt.Println(rc.SetReadDeadline(time.Now()), rc.SetWriteDeadline(time.Now()), w.Deadlines)
	// Output: <nil> <nil> 2
}

// A request reading a CutAtEOF body, exposed past its patience in a full
// Budget, is cut as the body ends.
func ExampleCutAtEOF() {
	b := admission.NewBudget(100, 0, 0, 0)
	other := b.NewCharge()
	defer other.Release()
	reading := b.NewCharge()
	defer reading.Release()
	defer reading.Expose(func() {})()
	io.ReadAll(reading.Reader(admissiontest.CutAtEOF(`{"text":"a"}`, other)))
	fmt.Println(reading.Cut())
	// Output: true
}

// A handler's answer to a StalledWriter waits until the writer is released.
func ExampleStalledWriter() {
	w := admissiontest.NewStalledWriter()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fmt.Fprint(w, "answer")
	}()
	<-w.Writing()
	fmt.Println("writing")
	w.Release()
	<-done
	fmt.Println("written")
	// Output:
	// writing
	// written
}
