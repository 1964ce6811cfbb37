//! The floor under any `check` of a cluster file: a process that reads the file and hands
//! over an answer of a given size, and does nothing else. No reader can take less time
//! than this: it parses nothing, and it holds neither the file nor the answer in memory
//! (both pass through one 64 KiB buffer each, so it touches few fresh pages).
//!
//! `io_floor FILE ANSWER_BYTES`: reads `FILE` to its end, then writes `ANSWER_BYTES` bytes to
//! stdout. `benches/read_bench.py` builds it with `rustc -O` and times it beside
//! `resource-pool check` through the same pipe. It is not a cargo target (the package sets
//! `autobenches = false`): it is the benchmark's yardstick, not part of the product.

use std::io::{Read, Write};
use std::process::ExitCode;

const CHUNK: usize = 64 * 1024;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, file, answer_bytes] = args.as_slice() else {
        eprintln!("usage: io_floor FILE ANSWER_BYTES");
        return ExitCode::from(2);
    };
    let Ok(answer_bytes) = answer_bytes.parse::<usize>() else {
        eprintln!("io_floor: ANSWER_BYTES must be a count of bytes");
        return ExitCode::from(2);
    };
    match read_then_write(file, answer_bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("io_floor: {error}");
            ExitCode::FAILURE
        }
    }
}

fn read_then_write(file: &str, answer_bytes: usize) -> std::io::Result<()> {
    let mut input = std::fs::File::open(file)?;
    let mut buffer = vec![0u8; CHUNK];
    while input.read(&mut buffer)? != 0 {}
    let answer = vec![b' '; CHUNK];
    let mut stdout = std::io::stdout().lock();
    let mut left = answer_bytes;
    while left > 0 {
        let now = left.min(CHUNK);
        stdout.write_all(&answer[..now])?;
        left -= now;
    }
    stdout.flush()
}
