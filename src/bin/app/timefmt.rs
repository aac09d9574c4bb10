//! Time labels for the page: UTC by default, or the browser's local time.

use reconscope::time::civil_from_days;

const NS: i64 = 1_000_000_000;

/// Which clock labels use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Zone {
    #[default]
    Utc,
    Local,
}

impl Zone {
    /// Seconds east of UTC at that instant.
    pub fn offset_secs(self, nanos: i64) -> i64 {
        match self {
            Zone::Utc => 0,
            Zone::Local => {
                let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(nanos as f64 / 1e6));
                -(d.get_timezone_offset() as i64) * 60
            }
        }
    }

    /// `UTC` or `UTC+02:00`.
    pub fn name(self, nanos: i64) -> String {
        let off = self.offset_secs(nanos);
        if self == Zone::Utc {
            return "UTC".into();
        }
        let sign = if off < 0 { '-' } else { '+' };
        let a = off.abs();
        format!("local, UTC{sign}{:02}:{:02}", a / 3600, a % 3600 / 60)
    }
}

/// Calendar parts of an instant at an offset.
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
    let t = nanos + zone.offset_secs(nanos) * NS;
    let secs = t.div_euclid(NS);
    let frac = t.rem_euclid(NS);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    Parts { year, month, day, hour: sod / 3600, minute: sod % 3600 / 60, second: sod % 60, nanos: frac }
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

/// `2026-05-26`.
pub fn date(nanos: i64, zone: Zone) -> String {
    let p = parts(nanos, zone);
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

/// Bytes as `12.3 MB`.
pub fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = n;
    let mut u = 0;
    while v >= 1000.0 && u < UNITS.len() - 1 {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{} B", n as u64)
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}
