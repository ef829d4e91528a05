//! A `timestamptz` column as folio shows it: UTC text with microseconds,
//! `2026-11-30T12:34:56.000001Z` — the bytes the server's
//! `to_char(col AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` gives, made here from the
//! column's binary value (microseconds since 2000-01-01 UTC). Asking the server to format four
//! columns of every row more than doubled its time to send a brain's nodes (docs/benchmarks.md,
//! "Twenty-fourth session"). Unlike `to_char`, which gives NULL, PostgreSQL's infinite
//! timestamps are shown as PostgreSQL spells them: a `NOT NULL` column may hold one.
use postgres::types::{FromSql, Type};

/// Microseconds in a day.
const DAY: i64 = 86_400_000_000;
/// Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch.
const PG_EPOCH_DAYS: i64 = 10_957;

/// A `timestamptz` read as folio's UTC text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UtcText(pub String);

impl<'a> FromSql<'a> for UtcText {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let micros: [u8; 8] = raw.try_into().map_err(|_| format!("a timestamp of {} bytes, not 8", raw.len()))?;
        Ok(UtcText(text(i64::from_be_bytes(micros))))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::TIMESTAMPTZ
    }
}

/// The text of a `timestamptz` of `micros` since 2000-01-01 00:00 UTC.
pub fn text(micros: i64) -> String {
    match micros {
        i64::MAX => return "infinity".into(),
        i64::MIN => return "-infinity".into(),
        _ => {}
    }
    let (days, in_day) = (micros.div_euclid(DAY), micros.rem_euclid(DAY));
    let (year, month, day) = civil(days + PG_EPOCH_DAYS);
    // `YYYY` of a year before the common era is its number without a sign or era (1 BC is 1).
    let year = if year <= 0 { 1 - year } else { year };
    let secs = in_day / 1_000_000;
    let (hour, minute, second, micro) = (secs / 3600, secs / 60 % 60, secs % 60, in_day % 1_000_000);
    if year > 9999 {
        return format!("{year}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{micro:06}Z");
    }
    // Written digit by digit rather than through `format!`: a first open shows four of these
    // for each of 100k rows (docs/benchmarks.md, "Thirty-fourth session").
    let mut b = *b"0000-00-00T00:00:00.000000Z";
    let mut put = |at: usize, width: usize, mut n: i64| {
        for i in (at..at + width).rev() {
            b[i] = b'0' + (n % 10) as u8;
            n /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, i64::from(month));
    put(8, 2, i64::from(day));
    put(11, 2, hour);
    put(14, 2, minute);
    put(17, 2, second);
    put(20, 6, micro);
    String::from_utf8_lossy(&b).into_owned()
}

/// (year, month, day) in the proleptic Gregorian calendar, year 0 being 1 BC, of `days` since
/// 1970-01-01 (the days-to-civil algorithm: 400-year eras of 146,097 days, years from March).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Microseconds since 2000-01-01 UTC of a time the `time` crate reads.
    fn micros(t: time::OffsetDateTime) -> i64 {
        ((t.unix_timestamp_nanos() / 1000) - i128::from(PG_EPOCH_DAYS) * i128::from(DAY)) as i64
    }

    #[test]
    fn what_the_server_printed() {
        // Each pair as PostgreSQL 15's `to_char` printed it for the same value.
        let at = |s: &str| micros(time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).unwrap());
        for (value, printed) in [
            ("2026-11-30T12:34:56.000001Z", "2026-11-30T12:34:56.000001Z"),
            ("1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000000Z"),
            ("1969-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.999999Z"),
            ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000000Z"),
            ("9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z"),
            ("2000-02-29T01:02:03.5+05:30", "2000-02-28T19:32:03.500000Z"),
            ("2000-01-01T00:00:00Z", "2000-01-01T00:00:00.000000Z"),
        ] {
            assert_eq!(text(at(value)), printed, "{value}");
        }
        assert_eq!(text(i64::MAX), "infinity");
        assert_eq!(text(i64::MIN), "-infinity");
        // Beyond the `time` crate's years: 1 BC is day -1 of year 1, 10000-01-01 the day after 9999's last.
        assert_eq!(text(at("0001-01-01T00:00:00Z") - 1), "0001-12-31T23:59:59.999999Z");
        assert_eq!(text(at("9999-12-31T00:00:00Z") + DAY), "10000-01-01T00:00:00.000000Z");
        // PostgreSQL's first day, 4713-11-24 BC, and its last instant, as the server gives their values.
        assert_eq!(text(-211_781_865_600_000_000), "4713-11-24T00:00:00.000000Z");
        assert_eq!(text(9_223_371_331_199_999_999), "294276-12-31T23:59:59.999999Z");
    }

    proptest::proptest! {
        /// Every instant of the years 1–9999 as the `time` crate formats it.
        #[test]
        fn as_the_time_crate_formats_it(at in micros(time::macros::datetime!(0001-01-01 0:00 UTC))
            ..micros(time::macros::datetime!(9999-12-31 23:59:59.999999 UTC)))
        {
            let unix_nanos = (i128::from(at) + i128::from(PG_EPOCH_DAYS) * i128::from(DAY)) * 1000;
            let t = time::OffsetDateTime::from_unix_timestamp_nanos(unix_nanos).unwrap();
            let want = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
                t.year(), u8::from(t.month()), t.day(), t.hour(), t.minute(), t.second(), t.microsecond()
            );
            proptest::prop_assert_eq!(text(at), want);
        }
    }
}
