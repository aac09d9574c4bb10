//! Writing ustar archives for tests (headers with correct checksums).
#![allow(dead_code)]

/// One ustar header block with a correct checksum.
pub fn tar_header(name: &str, size: usize, typeflag: u8, mtime: u64, prefix: &str) -> [u8; 512] {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..108].copy_from_slice(b"0000644\0");
    h[108..116].copy_from_slice(b"0001750\0");
    h[116..124].copy_from_slice(b"0001750\0");
    h[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    h[136..148].copy_from_slice(format!("{mtime:011o}\0").as_bytes());
    h[148..156].copy_from_slice(b"        ");
    h[156] = typeflag;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[345..345 + prefix.len()].copy_from_slice(prefix.as_bytes());
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

pub fn tar_entry(out: &mut Vec<u8>, name: &str, data: &[u8], typeflag: u8, mtime: u64) {
    out.extend_from_slice(&tar_header(name, data.len(), typeflag, mtime, ""));
    out.extend_from_slice(data);
    out.resize(out.len().next_multiple_of(512), 0);
}
