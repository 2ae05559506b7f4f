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
    String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
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
        std::fs::remove_dir_all(&d).unwrap();
    }
}
