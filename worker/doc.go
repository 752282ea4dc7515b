// Package worker runs a document's fiscal lifecycle as River jobs:
//
//	queued_for_signing --sign--> signed --submit--> submitted --poll--> accepted | accepted_conditional | rejected
//	                                    \--(type 32 under DOP 250,000: RFCE, synchronous verdict)--> accepted | …
//	any step that cannot proceed without action --> failed (with a reason)
//
// Each step is one job. A step reads the document, does its work outside any
// transaction (signing, calling DGII), then applies its transition with
// UpdateDocument, which writes the new state, the history row, the event and
// the next job in one transaction. A step that finds the document already
// past it does nothing, so a job run twice is harmless.
//
// DGII being down never loses a document: the job snoozes (River does not
// count snoozes as attempts) and tries again, for as long as it takes. A send
// whose outcome is unknown (a timeout after the request went out) fails the
// attempt; the next attempt asks DGII for the e-NCF's trackIds before
// sending again, so a document DGII received is never sent twice.
package worker
