// Package worker runs a document's fiscal lifecycle as River jobs:
//
//	queued_for_signing --sign--> signed --submit--> submitted --poll--> accepted | accepted_conditional | rejected
//	                                    \--(type 32 under DOP 250,000: RFCE, synchronous verdict)--> accepted | …
//	any step that cannot proceed without action --> failed (with a reason)
//
// One job per document carries it through (sello.DocumentJob). Each run reads the
// document and does the step its status calls for, outside any transaction
// (signing, calling DGII), then applies the transition with UpdateDocument,
// which writes the new state, the history row and the event in one
// transaction; then the next step, until the document is final or must wait
// for DGII, when the job snoozes. One job instead of one per step keeps a
// document to a handful of writes, which is what SQLite's single writer
// affords. A run that finds a step already done moves on, so a job run twice
// (River delivers at least once) is harmless.
//
// DGII being down never loses a document: the job snoozes (River does not
// count snoozes as attempts) and tries again, for as long as it takes. A send
// whose outcome is unknown (a timeout after the request went out) fails the
// attempt; the next attempt asks DGII for the e-NCF's trackIds before
// sending again, so a document DGII received is never sent twice.
package worker
