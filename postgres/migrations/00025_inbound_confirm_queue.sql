-- +goose Up
-- The confirmation queue (sello.QueueInboundConfirmJobs): a receipt writes
-- its document's entry here, in the transaction that stores the document,
-- instead of inserting the document's River job (River's insert was the
-- largest part of a receipt after the acuse's signature); the job runners
-- delete the entries and insert their jobs, in one transaction per batch,
-- every second, skipping the entries another runner's sweep holds. Its own
-- narrow table rather than a column of inbound_documents: taking an entry
-- deletes a row of three short values, where marking the document would
-- write a new version of its row and of every index of the table. Its key
-- is the document's id (UUIDv7, in receipt order), so the oldest entries
-- are the key's first.
--
-- It starts empty. Every document stored before it with dgii_status
-- pending got its job in the transaction that stored it; a document
-- received before Sello asked DGII (dgii_status NULL) has no security code
-- to ask with, and the job leaves it alone.
CREATE TABLE inbound_confirm_queue (
    inbound_document_id text PRIMARY KEY,
    tenant_id           text NOT NULL,
    environment         text NOT NULL
);

-- +goose Down
-- An entry still here loses its job: the queue is empty a second after the
-- last receipt of a running server.
DROP TABLE inbound_confirm_queue;
