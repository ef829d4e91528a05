//! ISO 8601 dates and times as the formats write them. One reader for every dialect, so
//! `stale_after`, `updated_at`, `published_at` and EloPhanto's dates agree on what is valid.
use time::format_description::well_known::{Iso8601, Rfc3339};
use time::{Date, OffsetDateTime, PrimitiveDateTime};

/// A date-time with an offset (`2026-04-27T18:55:21Z`, `…+02:00`).
fn with_offset(s: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(s, &Iso8601::DEFAULT).ok()
}

/// A date-time without an offset (`2026-04-27T18:55:21`).
fn without_offset(s: &str) -> Option<PrimitiveDateTime> {
    PrimitiveDateTime::parse(s, &Iso8601::DEFAULT).ok()
}

/// A bare `YYYY-MM-DD` (the date parser alone would accept a date-time's prefix).
fn bare_date(s: &str) -> Option<Date> {
    if s.len() != 10 {
        return None;
    }
    Date::parse(s, &Iso8601::DEFAULT).ok()
}

/// An ISO 8601 date-time, with or without an offset; a bare date does not count.
pub fn is_datetime(s: &str) -> bool {
    let s = s.trim();
    with_offset(s).is_some() || without_offset(s).is_some()
}

/// A bare `YYYY-MM-DD` date.
pub fn is_date(s: &str) -> bool {
    bare_date(s.trim()).is_some()
}

/// A date or date-time as an instant: a date-time without an offset is read as UTC and a bare
/// date as its midnight UTC, so an imprecise `stale_after` still ages.
pub fn parse_instant(s: &str) -> Option<OffsetDateTime> {
    let s = s.trim();
    with_offset(s)
        .or_else(|| without_offset(s).map(|t| t.assume_utc()))
        .or_else(|| bare_date(s).map(|d| d.midnight().assume_utc()))
}

/// The one clock of every age, staleness check and logged time. `FOLIO_NOW` (a date or an ISO
/// 8601 instant) pins it for a reproducible run, and tests pin it with `pin`, so nothing
/// folio prints depends on the day it runs.
pub fn now() -> OffsetDateTime {
    clock::pinned().unwrap_or_else(OffsetDateTime::now_utc)
}

/// Pin the clock for this process (tests); `FOLIO_NOW` still wins, as child processes see it.
pub fn pin(at: OffsetDateTime) {
    clock::pin(at)
}

mod clock {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicI64, Ordering};

    use time::OffsetDateTime;

    const UNPINNED: i64 = i64::MIN;
    static PINNED_SECS: AtomicI64 = AtomicI64::new(UNPINNED);

    fn from_env() -> Option<OffsetDateTime> {
        static ENV: OnceLock<Option<OffsetDateTime>> = OnceLock::new();
        *ENV.get_or_init(|| std::env::var("FOLIO_NOW").ok().and_then(|s| super::parse_instant(&s)))
    }

    pub fn pinned() -> Option<OffsetDateTime> {
        from_env().or_else(|| match PINNED_SECS.load(Ordering::Relaxed) {
            UNPINNED => None,
            secs => OffsetDateTime::from_unix_timestamp(secs).ok(),
        })
    }

    pub fn pin(at: OffsetDateTime) {
        PINNED_SECS.store(at.unix_timestamp(), Ordering::Relaxed);
    }
}

/// `2026-08-19T18:23:34.123456Z`, as evolve writes it.
pub fn now_iso() -> String {
    iso(now())
}

pub fn iso(t: OffsetDateTime) -> String {
    let t = t.replace_nanosecond(t.microsecond() * 1000).unwrap_or(t);
    t.format(&Rfc3339).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_counts_as_a_timestamp() {
        assert!(is_datetime("2026-04-27T18:55:21Z"));
        assert!(is_datetime("2026-04-27T18:55:21.123456Z"));
        assert!(is_datetime("2026-04-27T18:55:21+02:00"));
        assert!(is_datetime("2026-04-27T18:55:21"));
        assert!(!is_datetime("2026-04-27"));
        assert!(!is_datetime("2026-04-27 18:55"));
        assert!(!is_datetime("yesterday"));
        assert!(is_date("2026-02-26"));
        assert!(!is_date("2026-02-30"));
        assert!(!is_date("2026-02-26T00:00:00Z"));
    }

    #[test]
    fn instants_default_to_utc() {
        let z = parse_instant("2026-04-27T00:00:00Z").unwrap();
        assert_eq!(parse_instant("2026-04-27T00:00:00").unwrap(), z);
        assert_eq!(parse_instant("2026-04-27").unwrap(), z);
        assert_eq!(parse_instant("2026-04-27T02:00:00+02:00").unwrap(), z);
        assert_eq!(parse_instant("27/04/2026"), None);
    }
}
