//! Timestamps: parsing the variants log formats write, and RFC3339 output.
//! Pure arithmetic; nothing here reads a clock.

use std::cell::Cell;
use std::fmt;

use chrono::{DateTime, Datelike, NaiveDate, Utc};

pub const NANOS_PER_SEC: i64 = 1_000_000_000;

/// A point in time: UTC nanoseconds since the Unix epoch, plus how many
/// fractional-second digits the source wrote (0 = seconds, 3 = millis, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct Timestamp {
    pub nanos: i64,
    /// Fractional digits the source had (0..=9).
    pub digits: u8,
    /// The source wrote no year and the input had nothing to take one from
    /// (see the parser's `resolve_years`): `nanos` is in
    /// [`PLACEHOLDER_YEAR`], and the year is never shown.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub yearless: bool,
}

impl Timestamp {
    pub fn new(nanos: i64, digits: u8) -> Self {
        Timestamp { nanos, digits: digits.min(9), yearless: false }
    }

    /// The same kind of time (its year known or not) at `nanos`.
    pub fn at(self, nanos: i64, digits: u8) -> Self {
        Timestamp { nanos, digits: digits.min(9), yearless: self.yearless }
    }
}

impl fmt::Display for Timestamp {
    /// RFC3339 in UTC at the precision the source had; a time without a
    /// year in ISO 8601's truncated form, `--04-23T08:04:00Z`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.yearless {
            f.write_str(&format_without_year(*self))
        } else {
            f.write_str(&format_rfc3339(*self))
        }
    }
}

/// `UTC` or `UTC+02:00`: a fixed offset east of UTC, in whole minutes (one
/// of a day or more is UTC, as chrono holds no such offset).
pub fn zone_name(offset_secs: i32) -> String {
    let offset_secs = if offset_secs.unsigned_abs() < 86_400 { offset_secs } else { 0 };
    if offset_secs == 0 {
        return "UTC".into();
    }
    let a = offset_secs.unsigned_abs();
    format!("UTC{}{:02}:{:02}", if offset_secs < 0 { '-' } else { '+' }, a / 3600, a % 3600 / 60)
}

/// The years a timestamp may have: what i64 nanoseconds since 1970 hold
/// (1677-09-21 to 2262-04-11). A time outside them is refused, not wrapped.
pub const MIN_YEAR: i64 = 1678;
pub const MAX_YEAR: i64 = 2262;

/// Days since 1970-01-01 of `y-m-d` by chrono's (proleptic Gregorian)
/// calendar; `None` when no such date exists (Feb 30, Feb 29 of a year that
/// is not a leap year, month 13, day 0) or the year is outside
/// [`MIN_YEAR`]..=[`MAX_YEAR`].
///
/// The parser asks this on every line, and a log has few distinct dates:
/// the last date found is remembered per thread, so chrono runs once per
/// new date (the cache is checked against [`civil_days_uncached`] in the
/// tests).
#[inline]
pub fn civil_days(y: i64, m: u32, d: u32) -> Option<i64> {
    if !(MIN_YEAR..=MAX_YEAR).contains(&y) {
        return None;
    }
    if m > 15 || d > 31 {
        return None; // not a date (and not a key of the cache)
    }
    // 12 bits of year, 4 of month, 5 of day; never 0, as no year is.
    let key = (y as u32) << 9 | m << 5 | d;
    let (k, days) = LAST_DATE.with(Cell::get);
    if k == key {
        return Some(days);
    }
    let days = civil_days_uncached(y, m, d)?;
    LAST_DATE.with(|c| c.set((key, days)));
    Some(days)
}

thread_local! {
    /// (key, days) of the last possible date [`civil_days`] was asked.
    static LAST_DATE: Cell<(u32, i64)> = const { Cell::new((0, 0)) };
}

/// [`civil_days`] straight from chrono, remembering nothing.
pub fn civil_days_uncached(y: i64, m: u32, d: u32) -> Option<i64> {
    if !(MIN_YEAR..=MAX_YEAR).contains(&y) {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)?;
    Some(i64::from(date.num_days_from_ce()) - DAYS_CE_TO_1970)
}

/// chrono's day number (0001-01-01 is 1) of 1970-01-01.
const DAYS_CE_TO_1970: i64 = 719_163;

/// An instant in UTC as chrono's date and time (any i64 holds one:
/// 1677-09-21 to 2262-04-11).
#[inline]
pub fn utc(nanos: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_nanos(nanos)
}

/// Nanoseconds of a civil date and time, in UTC; `None` when the date
/// (by chrono's calendar, [`civil_days`]) or the clock is impossible (Feb
/// 30, hour 24, minute 60, ...) or the time does not fit i64 nanoseconds.
/// Second 60 (a leap second) is taken, as the next minute's second 0.
#[inline]
pub fn checked_civil_nanos(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32, frac_nanos: u32) -> Option<i64> {
    if !valid_hms(h, mi, s) || frac_nanos >= NANOS_PER_SEC as u32 {
        return None;
    }
    let days = civil_days(y, mo, d)?;
    let secs = days.checked_mul(86_400)?.checked_add(h as i64 * 3600 + mi as i64 * 60 + s as i64)?;
    secs.checked_mul(NANOS_PER_SEC)?.checked_add(frac_nanos as i64)
}

/// `nanos` minus a zone offset, `None` when that leaves i64.
#[inline]
pub fn minus_offset(nanos: i64, offset_secs: i32) -> Option<i64> {
    nanos.checked_sub((offset_secs as i64).checked_mul(NANOS_PER_SEC)?)
}

#[inline]
fn digit(b: u8) -> Option<u32> {
    if b.is_ascii_digit() {
        Some((b - b'0') as u32)
    } else {
        None
    }
}

#[inline]
fn num2(s: &[u8], i: usize) -> Option<u32> {
    Some(digit(*s.get(i)?)? * 10 + digit(*s.get(i + 1)?)?)
}

#[inline]
fn num4(s: &[u8], i: usize) -> Option<u32> {
    Some(num2(s, i)? * 100 + num2(s, i + 2)?)
}

/// A clock reading logs may write: second 60 is a leap second (chrono
/// would need it as second 59 with a fraction of 1 s or more; the parser
/// takes it as the next minute's second 0).
fn valid_hms(h: u32, mi: u32, s: u32) -> bool {
    h < 24 && mi < 60 && s <= 60
}

/// Reads `.fffffffff` at `i` (the dot included). Returns (nanos, digits, end).
fn fraction(s: &[u8], i: usize) -> (u32, u8, usize) {
    if s.get(i) != Some(&b'.') && s.get(i) != Some(&b',') {
        return (0, 0, i);
    }
    let mut j = i + 1;
    let mut nanos: u32 = 0;
    let mut n = 0u8;
    while let Some(d) = s.get(j).and_then(|&b| digit(b)) {
        if n < 9 {
            nanos = nanos * 10 + d;
            n += 1;
        }
        j += 1;
    }
    if j == i + 1 {
        return (0, 0, i);
    }
    let mut scaled = nanos;
    for _ in n..9 {
        scaled *= 10;
    }
    (scaled, n, j)
}

/// Reads a zone at `i`: `Z`, `+HH:MM`, `+HHMM`, `+HH`. Returns (offset seconds, end).
fn zone(s: &[u8], i: usize) -> Option<(i32, usize)> {
    match s.get(i)? {
        b'Z' | b'z' => Some((0, i + 1)),
        &c @ (b'+' | b'-') => {
            let h = num2(s, i + 1)?;
            let (m, end) = if s.get(i + 3) == Some(&b':') {
                (num2(s, i + 4)?, i + 6)
            } else if let Some(m) = num2(s, i + 3) {
                (m, i + 5)
            } else {
                (0, i + 3)
            };
            if h > 23 || m > 59 {
                return None;
            }
            let off = (h * 3600 + m * 60) as i32;
            Some((if c == b'-' { -off } else { off }, end))
        }
        _ => None,
    }
}

/// A parsed timestamp and where it ended in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub ts: Timestamp,
    pub end: usize,
    /// Whether the source wrote a zone (otherwise `default_offset_secs` was applied).
    pub zoned: bool,
}

/// What [`scan_rfc3339`] found at the start of the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// A time.
    Time(Parsed),
    /// Something written as a time that is none: an impossible date or
    /// clock (`2025-02-31`, `24:00:00`), or a year outside
    /// [`MIN_YEAR`]..=[`MAX_YEAR`]. `end` is where it ended.
    Impossible { end: usize },
    /// Not written as a time.
    No,
}

impl Scan {
    pub fn time(self) -> Option<Parsed> {
        match self {
            Scan::Time(p) => Some(p),
            _ => None,
        }
    }
}

/// RFC3339 / ISO8601 at the start of `s`: `2006-01-02T15:04:05[.f{1,9}][Z|±hh:mm|±hhmm]`.
/// A space instead of `T` is accepted when `allow_space` is set (capnslog).
/// A missing zone means local time at `default_offset_secs` east of UTC.
/// An impossible date or clock is `None`: see [`scan_rfc3339`].
pub fn parse_rfc3339(s: &[u8], allow_space: bool, default_offset_secs: i32) -> Option<Parsed> {
    scan_rfc3339(s, allow_space, default_offset_secs).time()
}

/// [`parse_rfc3339`], telling an impossible time from no time at all.
#[inline]
pub fn scan_rfc3339(s: &[u8], allow_space: bool, default_offset_secs: i32) -> Scan {
    if s.len() < 19 || s[4] != b'-' || s[7] != b'-' || s[13] != b':' || s[16] != b':' {
        return Scan::No;
    }
    if !(s[10] == b'T' || s[10] == b't' || (allow_space && s[10] == b' ')) {
        return Scan::No;
    }
    let (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(sec)) = (num4(s, 0), num2(s, 5), num2(s, 8), num2(s, 11), num2(s, 14), num2(s, 17)) else {
        return Scan::No;
    };
    let (frac, digits, mut end) = fraction(s, 19);
    let (off, zoned) = match zone(s, end) {
        Some((off, e)) => {
            end = e;
            (off, true)
        }
        None => (default_offset_secs, false),
    };
    match checked_civil_nanos(y as i64, mo, d, h, mi, sec, frac).and_then(|n| minus_offset(n, off)) {
        Some(nanos) => Scan::Time(Parsed { ts: Timestamp::new(nanos, digits), end, zoned }),
        None => Scan::Impossible { end },
    }
}

/// An epoch-seconds float at the start of `s`: `1737643238.5336082` or
/// `1.6573084001213665e+09`. Exact decimal arithmetic, no f64 rounding.
/// Requires a fraction or exponent, so a bare integer is not a time.
pub fn parse_epoch_float(s: &[u8]) -> Option<Parsed> {
    let mut i = 0;
    let mut mantissa: i128 = 0;
    let mut mant_digits = 0i32; // significant digits taken
    let mut frac_digits = 0i32; // of which after the dot
    let mut seen_dot = false;
    while let Some(&b) = s.get(i) {
        if b.is_ascii_digit() {
            if mant_digits < 30 {
                mantissa = mantissa * 10 + (b - b'0') as i128;
                mant_digits += 1;
                if seen_dot {
                    frac_digits += 1;
                }
            } else if !seen_dot {
                return None;
            }
        } else if b == b'.' && !seen_dot {
            seen_dot = true;
        } else {
            break;
        }
        i += 1;
    }
    if mant_digits == 0 {
        return None;
    }
    let mut exp: i32 = 0;
    let mut has_exp = false;
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        let neg = match s.get(j) {
            Some(b'+') => {
                j += 1;
                false
            }
            Some(b'-') => {
                j += 1;
                true
            }
            _ => false,
        };
        let start = j;
        while let Some(d) = s.get(j).and_then(|&b| digit(b)) {
            exp = exp.saturating_mul(10).saturating_add(d as i32);
            j += 1;
        }
        if j == start {
            return None;
        }
        if neg {
            exp = -exp;
        }
        has_exp = true;
        i = j;
    }
    if !seen_dot && !has_exp {
        return None;
    }
    // value = mantissa * 10^(exp - frac_digits) seconds
    let scale = exp.saturating_sub(frac_digits).saturating_add(9); // to nanos (an exponent of any size)
    let nanos: i128 = if scale >= 0 {
        if scale > 20 {
            return None;
        }
        mantissa.checked_mul(10i128.pow(scale as u32))?
    } else {
        if -scale > 38 {
            return None;
        }
        mantissa / 10i128.pow((-scale) as u32)
    };
    // Plausible log era: 2000..2200.
    if !(946_684_800_000_000_000..=7_258_118_400_000_000_000).contains(&nanos) {
        return None;
    }
    let written = (frac_digits - exp).clamp(0, 9) as u8;
    let digits = float_digits(nanos, 9, mant_digits as u32, written);
    Some(Parsed { ts: Timestamp::new(nanos as i64, digits), end: i, zoned: true })
}

/// The fractional digits (of a second) an epoch time of `nanos`, written
/// as a number in a unit of `10^unit_log10` nanoseconds, is good to, with `significant`
/// significant digits and `written` fractional digits of a second. A
/// number of 17 significant digits or fewer may be a float64 printed in
/// its shortest form (zap's epoch encoders, Python's `time.time()`), whose
/// last digits are below what a float64 holds at that size: 238 ns near
/// 1.7e9 seconds, so `1737643238.5336082` is good to the microsecond, not
/// to the 100 ns its seventh digit would say. Such a time keeps no more
/// digits than the float64's step; more digits than a float64 prints were
/// written from an integer, and stand.
fn float_digits(nanos: i128, unit_log10: u32, significant: u32, written: u8) -> u8 {
    if significant > 17 || nanos <= 0 {
        return written;
    }
    // The number as a float64 (from the value parsed already: its text is
    // not read again).
    let x = nanos as f64 / 10f64.powi(unit_log10 as i32);
    let step_nanos = (x.next_up() - x) * 10f64.powi(unit_log10 as i32);
    // The finest tick (10^(9-d) ns) no finer than the step.
    let finest = (0..=9u8).rev().find(|&d| tick_nanos(d) as f64 >= step_nanos).unwrap_or(0);
    written.min(finest)
}

pub const MONTHS: [&[u8; 3]; 12] = [b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec"];

/// The placeholder year for yearless times (a leap year, so Feb 29 fits).
pub const PLACEHOLDER_YEAR: i64 = 2000;

/// `HH:MM:SS[.ffffff]` at `i`. Returns (h, m, s, frac nanos, digits, end).
pub fn parse_hms(s: &[u8], i: usize) -> Option<(u32, u32, u32, u32, u8, usize)> {
    hms_fields(s, i).filter(|&(h, mi, sec, ..)| valid_hms(h, mi, sec))
}

/// [`parse_hms`] without checking the values (`25:61:99` is read): for
/// formats that tell an impossible clock from no clock.
pub fn hms_fields(s: &[u8], i: usize) -> Option<(u32, u32, u32, u32, u8, usize)> {
    let (h, mi, sec) = (num2(s, i)?, num2(s, i + 3)?, num2(s, i + 6)?);
    if s.get(i + 2) != Some(&b':') || s.get(i + 5) != Some(&b':') {
        return None;
    }
    let (frac, digits, end) = fraction(s, i + 8);
    Some((h, mi, sec, frac, digits, end))
}

/// A yearless month/day/time, placed in [`PLACEHOLDER_YEAR`] until
/// [`with_year`] gives it the right year. `None` when no year has that date
/// and clock (Feb 30, Apr 31, hour 24, ...).
/// `clock` is (hour, minute, second, fraction nanos, fraction digits).
pub fn yearless(mo: u32, d: u32, clock: (u32, u32, u32, u32, u8), offset_secs: i32) -> Option<Timestamp> {
    let (h, mi, s, frac, digits) = clock;
    let n = checked_civil_nanos(PLACEHOLDER_YEAR, mo, d, h, mi, s, frac)?;
    Some(Timestamp::new(minus_offset(n, offset_secs)?, digits))
}

/// Moves a yearless timestamp from the placeholder year to `year`; `None`
/// when that year has no such date (Feb 29 in a year that is not a leap
/// year) or is outside [`MIN_YEAR`]..=[`MAX_YEAR`] (or the time leaves i64
/// nanoseconds).
pub fn with_year(ts: Timestamp, year: i64) -> Option<Timestamp> {
    if !(MIN_YEAR..=MAX_YEAR).contains(&year) {
        return None;
    }
    let moved = utc(ts.nanos).with_year(year as i32)?;
    Some(Timestamp::new(moved.timestamp_nanos_opt()?, ts.digits))
}

/// [`with_year`] for choosing a year: nanoseconds, a Feb 29 in a year
/// that is not a leap year rolled to Mar 1, out of range saturated.
pub fn with_year_rolling(ts: Timestamp, year: i64) -> i64 {
    let saturated = if year < 1970 { i64::MIN } else { i64::MAX };
    let t = utc(ts.nanos).naive_utc();
    let Ok(y) = i32::try_from(year) else { return saturated };
    let moved = t.with_year(y).or_else(|| NaiveDate::from_ymd_opt(y, 3, 1).map(|d| d.and_time(t.time())));
    moved.and_then(|m| m.and_utc().timestamp_nanos_opt()).unwrap_or(saturated)
}

/// An epoch time written as a number (or a string holding one), as JSON
/// loggers write it: seconds, milliseconds, microseconds or nanoseconds,
/// told apart by magnitude (s ~1e9, ms ~1e12, µs ~1e15, ns ~1e18), with
/// an optional fraction of that unit. Exponent forms (`1.65e+09`) are
/// seconds. Exact decimal arithmetic, no f64 rounding. A number too big for
/// i64 nanoseconds is [`Scan::Impossible`]; a negative one is no time.
pub fn scan_epoch_number(s: &[u8]) -> Scan {
    let mut i = 0;
    let mut int: u128 = 0;
    while let Some(d) = s.get(i).and_then(|&b| digit(b)) {
        int = int.saturating_mul(10).saturating_add(d as u128);
        i += 1;
    }
    if i == 0 {
        return Scan::No;
    }
    let mut frac: u128 = 0;
    let mut nfrac = 0u32;
    if s.get(i) == Some(&b'.') {
        i += 1;
        while let Some(d) = s.get(i).and_then(|&b| digit(b)) {
            if nfrac < 18 {
                frac = frac * 10 + d as u128;
                nfrac += 1;
            }
            i += 1;
        }
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        return match parse_epoch_float(s) {
            Some(p) if p.end == s.len() => Scan::Time(p),
            Some(_) => Scan::No,
            None => Scan::Impossible { end: s.len() },
        };
    }
    if i != s.len() {
        return Scan::No;
    }
    // log10 of nanos per unit
    let unit: u32 = match int {
        0..100_000_000_000 => 9,
        100_000_000_000..100_000_000_000_000 => 6,
        100_000_000_000_000..100_000_000_000_000_000 => 3,
        _ => 0,
    };
    let scale = 10u128.pow(unit);
    let nanos = int.saturating_mul(scale).saturating_add(frac * scale / 10u128.pow(nfrac));
    let written = (9 - unit + nfrac).min(9) as u8;
    let digits = if nfrac == 0 {
        written
    } else {
        let int_digits = s[..i].iter().position(|&b| b == b'.').unwrap_or(i) as u32;
        float_digits(nanos as i128, unit, int_digits + nfrac, written)
    };
    match i64::try_from(nanos) {
        Ok(n) => Scan::Time(Parsed { ts: Timestamp::new(n, digits), end: i, zoned: true }),
        Err(_) => Scan::Impossible { end: i },
    }
}

/// The UTC year of a timestamp.
pub fn year_of(ts: Timestamp) -> i64 {
    i64::from(utc(ts.nanos).year())
}

/// RFC3339 in UTC (chrono's calendar) with exactly as many fractional
/// digits as the source had: the fraction cut, never rounded.
pub fn format_rfc3339(ts: Timestamp) -> String {
    let mut out = Vec::with_capacity(30);
    write_rfc3339(&mut out, ts);
    // (Digits, `-`, `:`, `.`, `T` and `Z` only.)
    String::from_utf8(out).unwrap_or_default()
}

/// `00` to `99`, each number's two digits at twice its index.
const TWO_DIGITS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

/// [`format_rfc3339`] written onto the end of `out`, without a `String`
/// or chrono's formatter: the JSON document writes two for each of a
/// million reconciles. The date is the proleptic Gregorian one chrono
/// gives (Howard Hinnant's `civil_from_days`; the tests compare the two).
pub fn write_rfc3339(out: &mut Vec<u8>, ts: Timestamp) {
    let digits = usize::from(ts.digits.min(9));
    let secs = ts.nanos.div_euclid(NANOS_PER_SEC);
    let frac = ts.nanos.rem_euclid(NANOS_PER_SEC);
    let (days, sod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days since 0000-03-01, in 400-year eras.
    let z = days + 719_468;
    let (era, doe) = (z.div_euclid(146_097), z.rem_euclid(146_097));
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // (Every i64 of nanoseconds is in the years 1677 to 2262: four digits.)
    let mut b = *b"0000-00-00T00:00:00.000000000Z";
    // Two digits at a time, from a table.
    let mut put2 = |at: usize, v: i64| {
        let i = 2 * v as usize;
        b[at..at + 2].copy_from_slice(&TWO_DIGITS[i..i + 2]);
    };
    put2(0, year / 100);
    put2(2, year % 100);
    put2(5, month);
    put2(8, day);
    put2(11, sod / 3_600);
    put2(14, sod / 60 % 60);
    put2(17, sod % 60);
    if digits == 0 {
        out.extend_from_slice(&b[..19]);
    } else {
        put2(21, frac / 1_000_000 % 100);
        put2(23, frac / 10_000 % 100);
        put2(25, frac / 100 % 100);
        put2(27, frac % 100);
        b[20] = b'0' + (frac / 100_000_000) as u8;
        out.extend_from_slice(&b[..20 + digits]);
    }
    out.push(b'Z');
}

/// `20m36s`, `71µs`, `3.2s`.
pub fn human_duration(nanos: i64) -> String {
    let n = nanos.max(0);
    if n < 1_000 {
        return format!("{n}ns");
    }
    // Each unit is rounded to the nearest, not cut.
    if n < 999_500 {
        return format!("{}µs", (n + 500) / 1_000);
    }
    if n < 999_500_000 {
        return format!("{}ms", (n + 500_000) / 1_000_000);
    }
    let s = n.saturating_add(NANOS_PER_SEC / 2) / NANOS_PER_SEC;
    if s < 60 {
        return format!("{s}s");
    }
    if s < 3600 {
        return format!("{}m{:02}s", s / 60, s % 60);
    }
    format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
}

/// [`human_duration`] rounded up in its unit, never down: what a duration
/// is at most (`2s` for 1.2 s, `20m38s` for 20m37.999s).
pub fn human_duration_up(nanos: i64) -> String {
    let n = nanos.max(0);
    let up = |unit: i64| n / unit + i64::from(n % unit != 0);
    if n < 1_000 {
        return format!("{n}ns");
    }
    if n <= 999_000 {
        return format!("{}µs", up(1_000));
    }
    if n <= 999_000_000 {
        return format!("{}ms", up(1_000_000));
    }
    let s = up(NANOS_PER_SEC);
    if s < 60 {
        return format!("{s}s");
    }
    if s < 3600 {
        return format!("{}m{:02}s", s / 60, s % 60);
    }
    let m = up(60 * NANOS_PER_SEC);
    format!("{}h{:02}m", m / 60, m % 60)
}

/// How finely a timestamp with `digits` fractional digits was written:
/// `10^(9-digits)` nanoseconds (a second for `16:55:13Z`).
pub fn tick_nanos(digits: u8) -> i64 {
    10i64.pow(9 - u32::from(digits.min(9)))
}

/// The time between two log timestamps, as far as their precision tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    /// The written difference (`end - start`, at least 0).
    pub nanos: i64,
    /// The coarser timestamp's [`tick_nanos`].
    pub tick: i64,
    /// Bounds on the real difference, whether the loggers cut or rounded
    /// their timestamps to their precision: the written difference give or
    /// take one coarse tick, never below 0.
    pub at_least: i64,
    pub at_most: i64,
}

impl Gap {
    pub fn between(start: Timestamp, end: Timestamp) -> Gap {
        // (Times more than 292 years apart saturate: no wrap.)
        Gap::written(end.nanos.saturating_sub(start.nanos), tick_nanos(start.digits.min(end.digits)))
    }

    /// A difference of `nanos` as written between times known to `tick`
    /// nanoseconds (at least 1).
    pub fn written(nanos: i64, tick: i64) -> Gap {
        let (d, tick) = (nanos.max(0), tick.max(1));
        Gap { nanos: d, tick, at_least: d.saturating_sub(tick - 1).max(0), at_most: d.saturating_add(tick - 1) }
    }

    /// Both timestamps exact to the nanosecond: the difference is the figure.
    pub fn is_exact(&self) -> bool {
        self.tick == 1
    }

    /// The difference is less than the coarser timestamp's tick: both fall in
    /// the same second (or millisecond…) as far as the logs say.
    pub fn within_tick(&self) -> bool {
        self.tick > 1 && self.nanos < self.tick
    }

    /// The difference no finer than the tick: `under 1s` within one, else
    /// rounded to it (see [`honest_duration`]).
    pub fn honest(&self) -> String {
        if self.within_tick() {
            return format!("under {}", human_duration(self.tick));
        }
        human_duration(self.nanos.saturating_add(self.tick / 2) / self.tick * self.tick)
    }

    /// `second`, `millisecond`, `microsecond`, or `None` for other ticks.
    pub fn tick_name(&self) -> Option<&'static str> {
        match self.tick {
            NANOS_PER_SEC => Some("second"),
            1_000_000 => Some("millisecond"),
            1_000 => Some("microsecond"),
            _ => None,
        }
    }
}

/// The time between two log timestamps, no finer than the coarser of them:
/// `under 1s` when it is less than that tick (a start logged to the second,
/// an end to the microsecond), else rounded to it (`3s`, never `2.731s`).
pub fn honest_duration(start: Timestamp, end: Timestamp) -> String {
    Gap::between(start, end).honest()
}

/// The time between two log timestamps when `start` is only the earliest
/// it can be: `at most 20m38s`, the upper bound rounded up (never less
/// than it may have been).
pub fn at_most_duration(start: Timestamp, end: Timestamp) -> String {
    format!("at most {}", human_duration_up(Gap::between(start, end).at_most))
}

/// What a person types for a duration, in nanoseconds: numbers, each with
/// its unit, spaces allowed anywhere: `30s`, `1m30s`, `2m`, `500ms`,
/// `1.5s`, `20 min`, `1h 5m`. Units (any case): `ns`, `us`/`µs`, `ms`,
/// `s`/`sec`/`second(s)`, `m`/`min`/`minute(s)`, `h`/`hr`/`hour(s)`.
/// Decimals are exact (`1.5s` is 1,500,000,000 ns; digits past the
/// nanosecond are dropped). `Err`: a short sentence saying what is wrong.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    const EXAMPLE: &str = "e.g. 30s, 1m30s or 500ms";
    let lower = text.trim().to_lowercase();
    if lower.is_empty() {
        return Err(format!("no duration: type one, {EXAMPLE}"));
    }
    let mut rest = lower.as_str();
    let mut total: i128 = 0;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let num_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let num = &rest[..num_end];
        if !num.bytes().any(|b| b.is_ascii_digit()) || num.matches('.').count() > 1 {
            let at = rest.split_whitespace().next().unwrap_or(rest);
            return Err(format!("{at:?} is not a number with a unit ({EXAMPLE})"));
        }
        rest = rest[num_end..].trim_start();
        let unit_end = rest.find(|c: char| !c.is_alphabetic()).unwrap_or(rest.len());
        let unit: i128 = match &rest[..unit_end] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" | "sec" | "secs" | "second" | "seconds" => 1_000_000_000,
            "m" | "min" | "mins" | "minute" | "minutes" => 60_000_000_000,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3_600_000_000_000,
            "" => return Err(format!("{num} what? Give a unit: {num}s, {num}m or {num}ms")),
            other => return Err(format!("unknown unit {other:?}: use ms, s, m or h")),
        };
        rest = &rest[unit_end..];
        let (int, frac) = num.split_once('.').unwrap_or((num, ""));
        if int.len() > 18 {
            return Err("too long a duration".into());
        }
        let frac = &frac[..frac.len().min(18)];
        let whole = if int.is_empty() { 0 } else { int.parse::<i128>().map_err(|e| e.to_string())? };
        let part = if frac.is_empty() { 0 } else { frac.parse::<i128>().map_err(|e| e.to_string())? * unit / 10i128.pow(frac.len() as u32) };
        total += whole * unit + part;
        if total > i128::from(i64::MAX) {
            return Err("too long a duration".into());
        }
    }
    Ok(total as i64)
}

/// A time without a year, in ISO 8601's truncated form (UTC, at the
/// precision the source had): `--04-23T08:04:00.123Z`.
pub fn format_without_year(ts: Timestamp) -> String {
    let full = format_rfc3339(Timestamp::new(ts.nanos, ts.digits));
    match full.find('-') {
        Some(i) if i > 0 => format!("-{}", &full[i..]),
        _ => full,
    }
}

/// `Apr 23` for a time whose year is unknown, `2024-04-23` otherwise.
pub fn format_date(ts: Timestamp) -> String {
    let full = format_rfc3339(Timestamp::new(ts.nanos, 0));
    if !ts.yearless {
        return full[..10].to_string();
    }
    let t = utc(ts.nanos);
    month_day(t.month(), t.day())
}

/// `Apr 23`: a date without its year (`month` 1-12).
pub fn month_day(month: u32, day: u32) -> String {
    let name = std::str::from_utf8(MONTHS[(month as usize).clamp(1, 12) - 1]).unwrap_or("?");
    format!("{name} {day}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rfc(s: &str) -> String {
        let p = parse_rfc3339(s.as_bytes(), true, 0).expect(s);
        format_rfc3339(p.ts)
    }

    /// What chrono writes, cut to the source's digits: the reference
    /// [`write_rfc3339`] is held to.
    fn chrono_rfc3339(ts: Timestamp) -> String {
        use chrono::SecondsFormat;
        let digits = usize::from(ts.digits.min(9));
        let mut out = utc(ts.nanos).to_rfc3339_opts(SecondsFormat::Nanos, true);
        out.truncate(19 + if digits > 0 { 1 + digits } else { 0 });
        out.push('Z');
        out
    }

    /// The hand-written calendar is chrono's: at the ends of what a time
    /// holds, around the epoch, leap days and century years, and at a
    /// million instants spread over the whole range, at every precision.
    #[test]
    fn written_times_are_what_chrono_writes() {
        let mut at = vec![i64::MIN, i64::MIN + 1, i64::MAX, -1, 0, 1, NANOS_PER_SEC - 1, -NANOS_PER_SEC, -NANOS_PER_SEC - 1];
        for (y, m, d) in
            [(1900, 2, 28), (1900, 3, 1), (2000, 2, 29), (2000, 3, 1), (2100, 2, 28), (2024, 2, 29), (1969, 12, 31), (1700, 3, 1), (2262, 4, 11), (1677, 9, 21)]
        {
            let day = NaiveDate::from_ymd_opt(y, m, d).unwrap().and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp_nanos_opt();
            if let Some(n) = day {
                at.extend([n.checked_sub(1), Some(n), n.checked_add(1), n.checked_add(86_399 * NANOS_PER_SEC + 999_999_999)].into_iter().flatten());
            }
        }
        // A fixed sequence (xorshift), the same in every run.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            at.push(x as i64);
        }
        for (k, &n) in at.iter().enumerate() {
            let ts = Timestamp::new(n, (k % 11) as u8);
            assert_eq!(format_rfc3339(ts), chrono_rfc3339(ts), "{n} at {} digits", ts.digits);
        }
    }

    #[test]
    fn rfc3339_variants() {
        assert_eq!(rfc("2025-09-06T23:50:07Z"), "2025-09-06T23:50:07Z");
        assert_eq!(rfc("2023-09-03T16:55:11.4992Z"), "2023-09-03T16:55:11.4992Z");
        assert_eq!(rfc("2025-03-01T04:35:01.445572+0530"), "2025-02-28T23:05:01.445572Z");
        assert_eq!(rfc("2022-04-26T16:27:00.031+0800"), "2022-04-26T08:27:00.031Z");
        assert_eq!(rfc("2022-04-26T16:27:00.030902332+08:00"), "2022-04-26T08:27:00.030902332Z");
        assert_eq!(rfc("2021-09-11 14:46:23.606939"), "2021-09-11T14:46:23.606939Z");
        assert_eq!(rfc("2026-04-25T05:18:16.2623283Z"), "2026-04-25T05:18:16.2623283Z");
        assert!(parse_rfc3339(b"2025-13-06T23:50:07Z", false, 0).is_none());
        assert!(parse_rfc3339(b"2025-09-06 23:50:07Z", false, 0).is_none());
    }

    #[test]
    fn zone_less_uses_default_offset() {
        let p = parse_rfc3339(b"2021-09-11 14:46:23", true, 3600).unwrap();
        assert!(!p.zoned);
        assert_eq!(format_rfc3339(p.ts), "2021-09-11T13:46:23Z");
    }

    #[test]
    fn epoch_floats() {
        // Seven fractional digits written, but a float64 near 1.7e9 holds
        // steps of 238 ns: good to the microsecond.
        let p = parse_epoch_float(b"1.6573084001213665e+09\tINFO").unwrap();
        assert_eq!((format_rfc3339(p.ts), p.ts.nanos % 1000), ("2022-07-08T19:26:40.121366Z".into(), 500));
        assert_eq!(p.end, 22);
        let p = parse_epoch_float(b"1737643238.5336082,").unwrap();
        assert_eq!((format_rfc3339(p.ts), p.ts.digits), ("2025-01-23T14:40:38.533608Z".into(), 6));
        // Six digits are within a float64's step; nine (19 significant
        // digits, more than a float64 prints) were written from an integer.
        assert_eq!(parse_epoch_float(b"1683527186.881067").unwrap().ts.digits, 6);
        assert_eq!(parse_epoch_float(b"1683527186.881067123").unwrap().ts.digits, 9);
        assert_eq!(parse_epoch_float(b"1683527186.5").unwrap().ts.digits, 1);
        // As a JSON number: seconds, and milliseconds with a fraction (a
        // float64 near 1.7e12 ms holds steps of 244 ns).
        let digits = |t: &[u8]| match scan_epoch_number(t) {
            Scan::Time(p) => p.ts.digits,
            _ => panic!("{t:?}"),
        };
        assert_eq!(digits(b"1737643238.5336082"), 6);
        assert_eq!(digits(b"1737643238.533608"), 6);
        assert_eq!(digits(b"1716000000123.4567"), 6);
        assert_eq!(digits(b"1716000000123.45"), 5);
        assert_eq!(digits(b"1716000000123"), 3);
        assert_eq!(digits(b"1716000000123456789"), 9);
        // Early epoch floats: below 2^28 s (1978), a float64 holds 30 ns.
        assert_eq!(digits(b"200000000.1234567"), 7);
        assert!(parse_epoch_float(b"12345").is_none());
        assert!(parse_epoch_float(b"1.5").is_none());
    }

    #[test]
    fn yearless_roundtrip() {
        let ts = yearless(2, 29, (1, 2, 3, 0, 0), 0).unwrap();
        assert_eq!(format_rfc3339(with_year(ts, 2024).unwrap()), "2024-02-29T01:02:03Z");
        assert_eq!(with_year(ts, 2023), None, "Feb 29 of a year that is not a leap year");
        let ts = yearless(9, 10, (9, 6, 15, 416_743_000, 6), 0).unwrap();
        assert_eq!(format_rfc3339(with_year(ts, 2021).unwrap()), "2021-09-10T09:06:15.416743Z");
        assert_eq!(with_year(ts, 4052), None, "past 2262");
        for (mo, d) in [(2, 30), (2, 31), (4, 31), (6, 31), (9, 31), (11, 31), (13, 1), (0, 1), (1, 0), (1, 32)] {
            assert_eq!(yearless(mo, d, (1, 2, 3, 0, 0), 0), None, "{mo}/{d}");
        }
        for clock in [(24, 0, 0, 0, 0), (25, 0, 0, 0, 0), (1, 60, 0, 0, 0), (1, 2, 61, 0, 0)] {
            assert_eq!(yearless(1, 1, clock, 0), None, "{clock:?}");
        }
    }

    #[test]
    fn human_durations_round() {
        assert_eq!(human_duration(71_400), "71µs");
        assert_eq!(human_duration(89_999_999_900), "1m30s");
        assert_eq!(human_duration(1_236 * NANOS_PER_SEC), "20m36s");
        assert_eq!(human_duration(999_700), "1ms");
    }

    #[test]
    fn human_durations_up_are_never_less() {
        let s = NANOS_PER_SEC;
        for (n, text) in [
            (999, "999ns"),
            (71_400, "72µs"),
            (999_000, "999µs"),
            (999_001, "1ms"),
            (999_000_001, "1s"),
            (1_200_000_000, "2s"),
            (7 * s, "7s"),
            (59 * s + 1, "1m00s"),
            // 20m37s, written to the second: up to 20m37.999999999s.
            (1_237 * s + s - 1, "20m38s"),
            (3_599 * s + 1, "1h00m"),
            (3_600 * s + 1, "1h01m"),
            (i64::MAX, "2562047h48m"),
        ] {
            assert_eq!(human_duration_up(n), text, "{n} ns");
        }
    }

    /// `input` read by [`scan_rfc3339`] (a space allowed): `expect` is the
    /// UTC time, or `"impossible"`, or `"no"`.
    fn check_scan(input: &str, expect: &str) {
        let got = match scan_rfc3339(input.as_bytes(), true, 0) {
            Scan::Time(p) => format_rfc3339(p.ts),
            Scan::Impossible { end } => {
                assert_eq!(end, input.len(), "{input}: end");
                "impossible".into()
            }
            Scan::No => "no".into(),
        };
        assert_eq!(got, expect, "{input}");
    }

    #[test]
    fn impossible_dates_and_clocks_are_not_times() {
        for input in [
            "2025-02-31T10:00:00Z",
            "2025-02-30T10:00:00.123Z",
            "2025-04-31T10:00:00+02:00",
            "2025-06-31 10:00:00.000001",
            "2025-02-29T10:00:00Z",
            "1900-02-29T10:00:00Z",
            "2025-13-01T10:00:00Z",
            "2025-00-10T10:00:00Z",
            "2025-01-00T10:00:00Z",
            "2025-01-32T10:00:00Z",
            "2025-01-10T24:00:00Z",
            "2025-01-10T25:00:00Z",
            "2025-01-10T10:60:00Z",
            "2025-01-10T10:00:61Z",
            "2025-01-10T10:00:99.5Z",
            // Years i64 nanoseconds do not hold (4052 used to wrap to 1713).
            "4052-01-10T10:00:00Z",
            "9999-12-31T23:59:59.999999999Z",
            "1600-01-01T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "2263-01-01T00:00:00Z",
            // In range by year, out of range by nanoseconds (ends 2262-04-11).
            "2262-12-31T00:00:00Z",
        ] {
            check_scan(input, "impossible");
        }
        check_scan("2024-02-29T10:00:00Z", "2024-02-29T10:00:00Z");
        check_scan("2000-02-29T10:00:00Z", "2000-02-29T10:00:00Z");
        check_scan("2025-01-10T23:59:60Z", "2025-01-11T00:00:00Z");
        check_scan("1678-01-01T00:00:00Z", "1678-01-01T00:00:00Z");
        check_scan("2262-04-11T00:00:00Z", "2262-04-11T00:00:00Z");
        check_scan("2025-01-1OT10:00:00Z", "no");
        check_scan("2025/01/10T10:00:00Z", "no");
        check_scan("hello", "no");
    }

    fn check_epoch(input: &str, expect: &str) {
        let got = match scan_epoch_number(input.as_bytes()) {
            Scan::Time(p) => format_rfc3339(p.ts),
            Scan::Impossible { .. } => "impossible".into(),
            Scan::No => "no".into(),
        };
        assert_eq!(got, expect, "{input}");
    }

    #[test]
    fn epoch_numbers_by_magnitude() {
        check_epoch("1716000000", "2024-05-18T02:40:00Z");
        check_epoch("1716000000.5", "2024-05-18T02:40:00.5Z");
        check_epoch("1716000000123", "2024-05-18T02:40:00.123Z");
        check_epoch("1716000000123.456", "2024-05-18T02:40:00.123456Z");
        check_epoch("1716000000123456", "2024-05-18T02:40:00.123456Z");
        check_epoch("1716000000123456789", "2024-05-18T02:40:00.123456789Z");
        check_epoch("1.716e+09", "2024-05-18T02:40:00Z");
        check_epoch("99999999999999999999", "impossible");
        check_epoch("9999999999999999999", "impossible");
        check_epoch("-5", "no");
        check_epoch("17x", "no");
    }

    #[test]
    fn arithmetic_saturates_never_wraps() {
        assert_eq!(checked_civil_nanos(i64::MAX, 1, 1, 0, 0, 0, 0), None);
        assert_eq!(checked_civil_nanos(292_000_000_000, 1, 1, 0, 0, 0, 0), None);
        assert_eq!(checked_civil_nanos(i64::MIN, 1, 1, 0, 0, 0, 0), None);
        // The last day a time holds, to its last nanosecond (a case the
        // property test below found by chance).
        assert_eq!(checked_civil_nanos(2262, 4, 11, 23, 47, 16, 854_775_807), Some(i64::MAX));
        assert_eq!(checked_civil_nanos(2262, 4, 11, 23, 47, 17, 0), None);
        assert_eq!(minus_offset(i64::MIN, 3600), None);
        let ts = yearless(3, 1, (1, 2, 3, 0, 0), 0).unwrap();
        assert_eq!(with_year_rolling(ts, i64::MAX), i64::MAX);
        assert_eq!(with_year_rolling(ts, i64::MIN), i64::MIN);
        assert_eq!(with_year_rolling(ts, 4052), i64::MAX);
        assert_eq!(with_year(ts, i64::MIN), None);
    }

    #[test]
    fn chrono_days_since_1970() {
        assert_eq!(civil_days_uncached(1970, 1, 1), Some(0));
        assert_eq!(civil_days(1970, 1, 1), Some(0));
        assert_eq!(civil_days(2000, 3, 1), Some(11_017));
        assert_eq!(civil_days(1969, 12, 31), Some(-1));
        // The cache keys on the whole date: a hit for one date is no
        // answer for another, nor for an impossible one.
        assert_eq!(civil_days(2025, 2, 28), Some(20_147));
        assert_eq!(civil_days(2025, 2, 29), None);
        assert_eq!(civil_days(2025, 2, 28), Some(20_147));
        assert_eq!(civil_days(2024, 2, 29), Some(19_782));
        assert_eq!(civil_days(2024, 2, 30), None);
        assert_eq!(civil_days(2024, 15, 31), None);
        assert_eq!(civil_days(2024, 16, 1), None);
    }

    /// Days in month `m` of year `y` by the Gregorian rule, written out
    /// here as the test's own oracle for what chrono (and so the product)
    /// refuses.
    fn month_len(y: i64, m: u32) -> u32 {
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        match m {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            1..=12 => 31,
            _ => 0,
        }
    }

    proptest::proptest! {
        /// The cached days agree with chrono asked afresh, whatever the
        /// order of dates asked (repeats, impossible dates and far years
        /// between them).
        #[test]
        fn cached_days_agree_with_chrono(dates in proptest::collection::vec((proptest::prop_oneof![1670i64..=1680, 1998i64..=2001, 2260i64..=2265, proptest::num::i64::ANY], 0u32..=17, proptest::prop_oneof![27u32..=32, 0u32..=99]), 1..60)) {
            for &(y, m, d) in &dates {
                proptest::prop_assert_eq!(civil_days(y, m, d), civil_days_uncached(y, m, d), "{}-{}-{}", y, m, d);
                proptest::prop_assert_eq!(civil_days(y, m, d), civil_days(y, m, d), "asked twice: {}-{}-{}", y, m, d);
            }
        }

        /// A date is taken exactly when it exists and its year is in
        /// 1678-2262; its days count on from the day before it.
        #[test]
        fn impossible_dates_refused(y in 1678i64..=2262, m in 0u32..=13, d in 0u32..=32) {
            let exists = (1..=month_len(y, m)).contains(&d);
            proptest::prop_assert_eq!(civil_days(y, m, d).is_some(), exists, "{}-{}-{}", y, m, d);
            // (The last instant i64 nanoseconds hold is 2262-04-11 23:47:16.854775807.)
            proptest::prop_assert_eq!(checked_civil_nanos(y, m, d, 12, 0, 0, 0).is_some(), exists && (y, m, d) <= (2262, 4, 11));
            if exists && d > 1 {
                proptest::prop_assert_eq!(civil_days(y, m, d), civil_days(y, m, d - 1).map(|n| n + 1));
            }
            if let Some(days) = civil_days(y, m, d) {
                let date = chrono::DateTime::from_timestamp(days * 86_400, 0).unwrap().date_naive();
                proptest::prop_assert_eq!((i64::from(date.year()), date.month(), date.day()), (y, m, d));
            }
        }

        /// Years outside 1678-2262 are refused, never wrapped, and nothing
        /// panics on them.
        #[test]
        fn far_years_refused(y in proptest::prop_oneof![1000i64..1678, 2263i64..=9999, i64::MIN..1678, 2263..=i64::MAX], m in 1u32..=12, d in 1u32..=28, h in 0u32..24) {
            proptest::prop_assert_eq!(civil_days(y, m, d), None);
            proptest::prop_assert_eq!(checked_civil_nanos(y, m, d, h, 0, 0, 0), None);
            let ts = yearless(m, d, (h, 0, 0, 0, 0), 0).unwrap();
            proptest::prop_assert_eq!(with_year(ts, y), None);
            let rolled = with_year_rolling(ts, y);
            proptest::prop_assert!(rolled == i64::MIN || rolled == i64::MAX || (y == 1677 && rolled < 0), "{} -> {}", y, rolled);
            let text = format!("{y:04}-{m:02}-{d:02}T{h:02}:00:00Z");
            if (0..=9999).contains(&y) {
                proptest::prop_assert!(matches!(scan_rfc3339(text.as_bytes(), false, 0), Scan::Impossible { .. }), "{}", text);
            }
        }

        /// RFC3339 output is chrono's reading of the instant, cut to the
        /// source's digits, and reads back as the same cut instant.
        #[test]
        fn rfc3339_output_roundtrips(nanos in (i64::MIN + 2 * NANOS_PER_SEC)..=i64::MAX, digits in 0u8..=9) {
            let ts = Timestamp::new(nanos, digits);
            let text = format_rfc3339(ts);
            let tick = tick_nanos(digits);
            let cut = nanos.div_euclid(tick) * tick;
            let back = chrono::DateTime::parse_from_rfc3339(&text).unwrap().timestamp_nanos_opt();
            proptest::prop_assert_eq!(back, Some(cut), "{}", &text);
            proptest::prop_assert_eq!(text.len(), 20 + if digits > 0 { 1 + digits as usize } else { 0 }, "{}", &text);
            if (MIN_YEAR..=MAX_YEAR).contains(&year_of(ts)) {
                proptest::prop_assert_eq!(parse_rfc3339(text.as_bytes(), false, 0).map(|p| p.ts.nanos), Some(cut), "{}", &text);
            }
        }

        /// RFC3339 times read as chrono reads them, or refused where chrono
        /// has no such date and time.
        #[test]
        fn rfc3339_agrees_with_chrono(y in 1678u32..=2261, m in 1u32..=12, d in 1u32..=31, h in 0u32..=25, mi in 0u32..=60, s in 0u32..=59, f in 0u32..1_000_000_000) {
            let text = format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{f:09}Z");
            let c = chrono::NaiveDate::from_ymd_opt(y as i32, m, d).and_then(|day| day.and_hms_nano_opt(h, mi, s, f));
            let ours = parse_rfc3339(text.as_bytes(), false, 0).map(|p| p.ts.nanos);
            proptest::prop_assert_eq!(ours, c.and_then(|c| c.and_utc().timestamp_nanos_opt()), "{}", text);
        }
    }

    #[test]
    fn durations_as_people_type_them() {
        let s = 1_000_000_000i64;
        for (text, want) in [
            ("30s", 30 * s),
            ("1m30s", 90 * s),
            ("2m", 120 * s),
            ("500ms", s / 2),
            ("1.5s", 3 * s / 2),
            ("20 min", 1200 * s),
            (" 1h 5m ", 3900 * s),
            ("2 Minutes", 120 * s),
            ("0.25m", 15 * s),
            (".5s", s / 2),
            ("250us", 250_000),
            ("250µs", 250_000),
            ("7ns", 7),
            ("1.0000000005s", s),
            ("0s", 0),
        ] {
            assert_eq!(parse_duration(text), Ok(want), "{text:?}");
        }
        for text in ["", "  ", "30", "abc", "-5s", "1.2.3s", "5 parsecs", "1m,30s", "99999999999999999999h", "100000000h"] {
            let e = parse_duration(text).unwrap_err();
            assert!(!e.is_empty() && e.len() < 80, "{text:?}: {e:?}");
        }
        assert_eq!(parse_duration("30").unwrap_err(), "30 what? Give a unit: 30s, 30m or 30ms");
    }
}
