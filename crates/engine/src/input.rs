//! Reading an input file whole, with a bound on its size.
//!
//! rdmasim reads each input (config, topology, flow, CDF and sweep
//! files) into memory before it parses it. Without a bound, a
//! path that names something endless (`/dev/zero`, a pipe that never
//! closes) or a huge file by mistake grows memory until the process is
//! killed; with one, the loader gets an error that its caller turns into
//! a message naming the file.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest input file rdmasim reads: 1 GiB. A peer flow file of ten
/// million flows is about 0.4 GB.
pub const MAX_INPUT_FILE_BYTES: u64 = 1 << 30;

/// What an error says of a file above [`MAX_INPUT_FILE_BYTES`].
pub const MAX_INPUT_FILE: &str = "1 GiB";

/// The text of the file at `path`, if it is UTF-8 and at most
/// [`MAX_INPUT_FILE_BYTES`] long. A regular file's size is checked before
/// anything is read; anything else (a device, a pipe) is read up to the
/// bound. The errors are `io::Error`s like those of
/// [`std::fs::read_to_string`], with a message that says what is wrong.
pub fn read_text(path: &Path) -> io::Result<String> {
    read_text_at_most(path, MAX_INPUT_FILE_BYTES)
}

fn read_text_at_most(path: &Path, max: u64) -> io::Result<String> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory, not a file",
        ));
    }
    let too_big = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "larger than {}: rdmasim reads input files whole (is it the right file?)",
                if max == MAX_INPUT_FILE_BYTES {
                    MAX_INPUT_FILE.to_string()
                } else {
                    format!("{max} bytes")
                }
            ),
        )
    };
    if meta.is_file() && meta.len() > max {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let not_utf8 = NotUtf8 {
            line: bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1,
            column: at - line_start + 1,
            byte: bytes[at],
        };
        io::Error::new(io::ErrorKind::InvalidData, not_utf8)
    })
}

/// Where a file that is not UTF-8 text first breaks the encoding, so that
/// an error can name the line to fix (a Latin-1 `µ` typed in an editor,
/// say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotUtf8 {
    /// 1-based line of the first byte that is not UTF-8.
    pub line: usize,
    /// 1-based column of that byte in its line, counted in bytes.
    pub column: usize,
    /// The byte.
    pub byte: u8,
}

impl NotUtf8 {
    /// What is wrong, for a message that names the line already.
    pub fn in_line(&self) -> String {
        format!(
            "not UTF-8 text: byte 0x{:02x} at column {}; save the file as UTF-8",
            self.byte, self.column
        )
    }
}

impl std::fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "not UTF-8 text: byte 0x{:02x} at line {}, column {}",
            self.byte, self.line, self.column
        )
    }
}

impl std::error::Error for NotUtf8 {}

/// Where the file was not UTF-8, if that is what `e`, an error of
/// [`read_text`], says.
pub fn not_utf8(e: &io::Error) -> Option<NotUtf8> {
    e.get_ref()?.downcast_ref::<NotUtf8>().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("rdmasim-input-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn reads_a_file_within_the_bound_and_refuses_one_beyond_it() {
        let d = temp_dir("bound");
        let p = d.join("f.txt");
        std::fs::write(&p, "0123456789").unwrap();
        assert_eq!(read_text_at_most(&p, 10).unwrap(), "0123456789");
        let e = read_text_at_most(&p, 9).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("larger than 9 bytes"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_endless_device_stops_at_the_bound() {
        let zero = Path::new("/dev/zero");
        if !zero.exists() {
            return;
        }
        let e = read_text_at_most(zero, 1 << 16).unwrap_err();
        assert!(e.to_string().contains("larger than 65536 bytes"), "{e}");
    }

    #[test]
    fn a_directory_and_binary_data_are_named_as_such() {
        let d = temp_dir("kinds");
        let e = read_text(&d).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        let p = d.join("b.bin");
        std::fs::write(&p, [0xff, 0xfe, 0x00]).unwrap();
        let e = read_text(&p).unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        std::fs::write(&p, b"a = 1\nrate = \"5\xb5s\"\n").unwrap();
        let e = read_text(&p).unwrap_err();
        assert_eq!(
            not_utf8(&e),
            Some(NotUtf8 {
                line: 2,
                column: 10,
                byte: 0xb5
            })
        );
        assert_eq!(
            e.to_string(),
            "not UTF-8 text: byte 0xb5 at line 2, column 10"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
