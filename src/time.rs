//! Timestamps: parsing the variants log formats write, and RFC3339 output.
//! Pure arithmetic; nothing here reads a clock.

use crate::model::Timestamp;

pub const NANOS_PER_SEC: i64 = 1_000_000_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Nanoseconds of a civil date and time, in UTC.
pub fn civil_nanos(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32, frac_nanos: u32) -> i64 {
    let days = days_from_civil(y, mo, d);
    ((days * 86_400 + h as i64 * 3600 + mi as i64 * 60 + s as i64) * NANOS_PER_SEC)
        .saturating_add(frac_nanos as i64)
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

fn valid_hms(h: u32, mi: u32, s: u32) -> bool {
    h < 24 && mi < 60 && s <= 60
}

fn valid_md(mo: u32, d: u32) -> bool {
    (1..=12).contains(&mo) && (1..=31).contains(&d)
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

/// RFC3339 / ISO8601 at the start of `s`: `2006-01-02T15:04:05[.f{1,9}][Z|±hh:mm|±hhmm]`.
/// A space instead of `T` is accepted when `allow_space` is set (capnslog).
/// A missing zone means local time at `default_offset_secs` east of UTC.
pub fn parse_rfc3339(s: &[u8], allow_space: bool, default_offset_secs: i32) -> Option<Parsed> {
    if s.len() < 19 {
        return None;
    }
    let y = num4(s, 0)?;
    if s[4] != b'-' || s[7] != b'-' || s[13] != b':' || s[16] != b':' {
        return None;
    }
    if !(s[10] == b'T' || s[10] == b't' || (allow_space && s[10] == b' ')) {
        return None;
    }
    let (mo, d) = (num2(s, 5)?, num2(s, 8)?);
    let (h, mi, sec) = (num2(s, 11)?, num2(s, 14)?, num2(s, 17)?);
    if !valid_md(mo, d) || !valid_hms(h, mi, sec) {
        return None;
    }
    let (frac, digits, mut end) = fraction(s, 19);
    let (off, zoned) = match zone(s, end) {
        Some((off, e)) => {
            end = e;
            (off, true)
        }
        None => (default_offset_secs, false),
    };
    let nanos = civil_nanos(y as i64, mo, d, h, mi, sec, frac) - off as i64 * NANOS_PER_SEC;
    Some(Parsed { ts: Timestamp::new(nanos, digits), end, zoned })
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
    let scale = exp - frac_digits + 9; // to nanos
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
    let digits = (frac_digits - exp).clamp(0, 9) as u8;
    Some(Parsed { ts: Timestamp::new(nanos as i64, digits), end: i, zoned: true })
}

pub const MONTHS: [&[u8; 3]; 12] =
    [b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec"];

/// The placeholder year for yearless times (a leap year, so Feb 29 fits).
pub const PLACEHOLDER_YEAR: i64 = 2000;

/// `HH:MM:SS[.ffffff]` at `i`. Returns (h, m, s, frac nanos, digits, end).
pub fn parse_hms(s: &[u8], i: usize) -> Option<(u32, u32, u32, u32, u8, usize)> {
    let (h, mi, sec) = (num2(s, i)?, num2(s, i + 3)?, num2(s, i + 6)?);
    if s.get(i + 2) != Some(&b':') || s.get(i + 5) != Some(&b':') || !valid_hms(h, mi, sec) {
        return None;
    }
    let (frac, digits, end) = fraction(s, i + 8);
    Some((h, mi, sec, frac, digits, end))
}

/// A yearless month/day/time, placed in [`PLACEHOLDER_YEAR`] until
/// [`with_year`] gives it the right year.
/// `clock` is (hour, minute, second, fraction nanos, fraction digits).
pub fn yearless(mo: u32, d: u32, clock: (u32, u32, u32, u32, u8), offset_secs: i32) -> Option<Timestamp> {
    let (h, mi, s, frac, digits) = clock;
    if !valid_md(mo, d) {
        return None;
    }
    let n = civil_nanos(PLACEHOLDER_YEAR, mo, d, h, mi, s, frac) - offset_secs as i64 * NANOS_PER_SEC;
    Some(Timestamp::new(n, digits))
}

/// Moves a yearless timestamp from the placeholder year to `year`.
pub fn with_year(ts: Timestamp, year: i64) -> Timestamp {
    let base = days_from_civil(PLACEHOLDER_YEAR, 1, 1) * 86_400 * NANOS_PER_SEC;
    let into = ts.nanos - base; // nanos into the placeholder year
    let day = into.div_euclid(86_400 * NANOS_PER_SEC);
    let rest = into.rem_euclid(86_400 * NANOS_PER_SEC);
    let (_, m, d) = civil_from_days(days_from_civil(PLACEHOLDER_YEAR, 1, 1) + day);
    // Feb 29 in a non-leap year rolls to Mar 1, as a wall clock would not write it anyway.
    let days = days_from_civil(year, m, d);
    Timestamp::new(days * 86_400 * NANOS_PER_SEC + rest, ts.digits)
}

/// The UTC year of a timestamp.
pub fn year_of(ts: Timestamp) -> i64 {
    civil_from_days(ts.nanos.div_euclid(86_400 * NANOS_PER_SEC)).0
}

/// RFC3339 in UTC with exactly as many fractional digits as the source had.
pub fn format_rfc3339(ts: Timestamp) -> String {
    let secs = ts.nanos.div_euclid(NANOS_PER_SEC);
    let frac = ts.nanos.rem_euclid(NANOS_PER_SEC);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let mut out = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        y,
        m,
        d,
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    );
    if ts.digits > 0 {
        let f = format!("{:09}", frac);
        out.push('.');
        out.push_str(&f[..ts.digits as usize]);
    }
    out.push('Z');
    out
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
    let s = (n + NANOS_PER_SEC / 2) / NANOS_PER_SEC;
    if s < 60 {
        return format!("{s}s");
    }
    if s < 3600 {
        return format!("{}m{:02}s", s / 60, s % 60);
    }
    format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
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
        let tick = tick_nanos(start.digits.min(end.digits));
        let d = (end.nanos - start.nanos).max(0);
        Gap { nanos: d, tick, at_least: (d - (tick - 1)).max(0), at_most: d + (tick - 1) }
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
    let g = Gap::between(start, end);
    if g.within_tick() {
        return format!("under {}", human_duration(g.tick));
    }
    human_duration((g.nanos + g.tick / 2) / g.tick * g.tick)
}

/// Parses a duration like `30s`, `1m30s`, `500ms`, `2h`.
pub fn parse_duration_nanos(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut total: f64 = 0.0;
    let mut rest = s;
    while !rest.is_empty() {
        let num_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        if num_end == 0 {
            return None;
        }
        let n: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let mult = match &rest[..unit_end] {
            "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            "s" | "" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        total += n * mult;
        rest = &rest[unit_end..];
    }
    Some(total as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rfc(s: &str) -> String {
        let p = parse_rfc3339(s.as_bytes(), true, 0).expect(s);
        format_rfc3339(p.ts)
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
        let p = parse_epoch_float(b"1.6573084001213665e+09\tINFO").unwrap();
        assert_eq!(format_rfc3339(p.ts), "2022-07-08T19:26:40.1213665Z");
        assert_eq!(p.end, 22);
        let p = parse_epoch_float(b"1737643238.5336082,").unwrap();
        assert_eq!(format_rfc3339(p.ts), "2025-01-23T14:40:38.5336082Z");
        assert!(parse_epoch_float(b"12345").is_none());
        assert!(parse_epoch_float(b"1.5").is_none());
    }

    #[test]
    fn yearless_roundtrip() {
        let ts = yearless(2, 29, (1, 2, 3, 0, 0), 0).unwrap();
        assert_eq!(format_rfc3339(with_year(ts, 2024)), "2024-02-29T01:02:03Z");
        let ts = yearless(9, 10, (9, 6, 15, 416_743_000, 6), 0).unwrap();
        assert_eq!(format_rfc3339(with_year(ts, 2021)), "2021-09-10T09:06:15.416743Z");
    }

    #[test]
    fn human_durations_round() {
        assert_eq!(human_duration(71_400), "71µs");
        assert_eq!(human_duration(89_999_999_900), "1m30s");
        assert_eq!(human_duration(1_236 * NANOS_PER_SEC), "20m36s");
        assert_eq!(human_duration(999_700), "1ms");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_nanos("30s"), Some(30_000_000_000));
        assert_eq!(parse_duration_nanos("1m30s"), Some(90_000_000_000));
        assert_eq!(parse_duration_nanos("250ms"), Some(250_000_000));
        assert_eq!(parse_duration_nanos("x"), None);
    }
}
