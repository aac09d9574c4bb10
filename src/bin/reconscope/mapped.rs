//! Plain input files mapped read-only instead of read into a buffer: the
//! page cache's pages are the file's bytes, so they are neither zeroed nor
//! copied (reading was half of what `stats` took on a 256 MiB log).
//!
//! A mapped file that shrinks while it is read (a log rotated with
//! logrotate's `copytruncate`) raises SIGBUS where the parser reads past
//! its new end. [`map`] installs a handler that says so on stderr and
//! exits 2, as any unreadable input does, rather than the process dying
//! without a word; `--no-mmap` reads such files instead.

use std::fs::File;
use std::io;
use std::sync::Once;

use reconscope::model::FileBytes;

/// Files smaller than this are read: a map costs a map and an unmap, and
/// an artifact folder may hold thousands of small logs.
pub const MIN_MAP_BYTES: u64 = 1 << 20;

/// The first `len` bytes of `file`, mapped read-only (its pages faulted in
/// up front, which costs less than a fault per page as the parser reads).
pub fn map(file: &File, len: u64) -> io::Result<FileBytes> {
    static HANDLER: Once = Once::new();
    HANDLER.call_once(install_sigbus_handler);
    let len = usize::try_from(len).map_err(|_| io::Error::other("too big to map"))?;
    // SAFETY: the map is read-only and private to this process, and the
    // bytes are only read through `FileBytes`. What another process does to
    // the file meanwhile is outside Rust's model: a write shows through
    // (the parser reads bytes, any bytes), and a cut makes the pages past
    // the new end raise SIGBUS, which the handler turns into exit 2.
    let map = unsafe { memmap2::MmapOptions::new().len(len).populate().map(file)? };
    Ok(FileBytes::held(map))
}

const SIGBUS_MESSAGE: &[u8] =
    b"reconscope: an input file shrank while it was read (rotated by truncation, as logrotate's copytruncate does?): run again on a copy, or with --no-mmap\n";

extern "C" fn on_sigbus(_: libc::c_int) {
    // Only async-signal-safe calls here: write(2) and _exit(2).
    // SAFETY: a static buffer and its length; fd 2 may be closed, then
    // the write fails and nothing else happens.
    unsafe {
        libc::write(2, SIGBUS_MESSAGE.as_ptr().cast(), SIGBUS_MESSAGE.len());
        libc::_exit(2);
    }
}

fn install_sigbus_handler() {
    // SAFETY: a zeroed sigaction with an empty mask is valid; the handler
    // above only makes async-signal-safe calls.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}
