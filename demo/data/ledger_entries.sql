-- ledger_entries: append-only double-entry rows (see ledger-entries.md)
CREATE TABLE ledger_entries (
    id            bigserial   PRIMARY KEY,
    journal_id    uuid        NOT NULL,
    account       text        NOT NULL,
    amount_minor  bigint      NOT NULL CHECK (amount_minor <> 0),
    currency      char(3)     NOT NULL,
    posted_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX ledger_entries_journal ON ledger_entries (journal_id);
CREATE INDEX ledger_entries_account ON ledger_entries (account, posted_at);

-- Entries are never updated or deleted; corrections are reversing journals.
REVOKE UPDATE, DELETE ON ledger_entries FROM ledger_app;
