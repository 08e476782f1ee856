package model

// ContextWindow is the paper's context cut, shared by training and serving: a
// context of an occurrence holds at most ContextWindow tokens on either side
// of it (and never crosses a line, or when serving a sentence, boundary).
const ContextWindow = 25
