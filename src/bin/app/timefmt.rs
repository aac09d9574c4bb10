//! Time labels for the page: UTC by default, or the browser's local time.

use chrono::{Datelike, FixedOffset, Offset, TimeZone, Timelike};

const NS: i64 = 1_000_000_000;

/// Which clock labels use (UTC, or the browser's local time), and
/// whether the logs gave a year (when not, no date shows one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Zone {
    pub local: bool,
    /// The loaded logs wrote no year and nothing gave one
    /// (`Analysis::year_unknown`): dates are `Apr 23`.
    pub yearless: bool,
}

impl Zone {
    pub const UTC: Zone = Zone { local: false, yearless: false };

    /// The offset from UTC at that instant: chrono's `Local` (the
    /// browser's zone, through its `Date`, with chrono's `wasmbind`).
    pub fn offset(self, nanos: i64) -> FixedOffset {
        let utc = reconscope::time::utc(nanos);
        if self.local {
            chrono::Local.offset_from_utc_datetime(&utc.naive_utc())
        } else {
            utc.offset().fix()
        }
    }

    /// Seconds east of UTC at that instant.
    pub fn offset_secs(self, nanos: i64) -> i64 {
        i64::from(self.offset(nanos).local_minus_utc())
    }

    /// `UTC` or `local, UTC+02:00`.
    pub fn name(self, nanos: i64) -> String {
        if !self.local {
            return "UTC".into();
        }
        let off = self.offset_secs(nanos);
        let sign = if off < 0 { '-' } else { '+' };
        let a = off.abs();
        format!("local, UTC{sign}{:02}:{:02}", a / 3600, a % 3600 / 60)
    }
}

/// Calendar parts of an instant in a zone.
pub struct Parts {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub nanos: i64,
}

pub fn parts(nanos: i64, zone: Zone) -> Parts {
    let t = reconscope::time::utc(nanos).with_timezone(&zone.offset(nanos));
    Parts {
        year: i64::from(t.year()),
        month: t.month(),
        day: t.day(),
        hour: i64::from(t.hour()),
        minute: i64::from(t.minute()),
        second: i64::from(t.second()),
        nanos: i64::from(t.nanosecond()),
    }
}

/// `16:29:30`, with `digits` fractional digits (0..=9).
pub fn clock(nanos: i64, zone: Zone, digits: u32) -> String {
    let p = parts(nanos, zone);
    let mut s = format!("{:02}:{:02}:{:02}", p.hour, p.minute, p.second);
    if digits > 0 {
        let d = digits.min(9);
        let frac = p.nanos / 10i64.pow(9 - d);
        s.push_str(&format!(".{:0width$}", frac, width = d as usize));
    }
    s
}

/// `2026-05-26`, or `Apr 23` when the logs gave no year.
pub fn date(nanos: i64, zone: Zone) -> String {
    let p = parts(nanos, zone);
    if zone.yearless {
        return reconscope::time::month_day(p.month, p.day);
    }
    format!("{:04}-{:02}-{:02}", p.year, p.month, p.day)
}

/// Fractional digits an instant needs: 0, 3 or 6.
fn digits_for(nanos: i64) -> u32 {
    let frac = nanos.rem_euclid(NS);
    if frac == 0 {
        0
    } else if frac % 1_000_000 == 0 {
        3
    } else {
        6
    }
}

/// `16:29:30.123`: as precise as the instant needs (up to µs).
pub fn clock_auto(nanos: i64, zone: Zone) -> String {
    clock(nanos, zone, digits_for(nanos))
}

/// `2026-05-26 16:29:30.123456`: as precise as the instant needs (up to µs).
pub fn full(nanos: i64, zone: Zone) -> String {
    format!("{} {}", date(nanos, zone), clock_auto(nanos, zone))
}

/// Bytes as `12.3 MiB`.
pub fn bytes(n: f64) -> String {
    // The units of every other size the app and the CLI write (notes,
    // the banner): binary, "1.5 GiB".
    reconscope::ingest::human_bytes(n.max(0.0) as u64)
}
