//! The compressions a dump's rows or text may come in beside gzip: pg_dump
//! 16 and later write lz4 and zstd (`--compress=lz4`, `--compress=zstd`)
//! into a custom-format archive's blocks of rows, a directory-format
//! dump's files of rows (`3456.dat.lz4`, `3456.dat.zst`) and a plain
//! dump's whole text. Each is a stream of frames (lz4's frame format,
//! zstd's), decompressed as it is read, in bounded memory: an lz4 block
//! is at most 4 MB, and a zstd frame whose window is larger than 128 MB
//! is refused rather than allocated.

use std::io::{BufRead, BufReader, Read};

/// How a stream of bytes is compressed, beside gzip and zlib.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Frames {
    Lz4,
    Zstd,
}

impl Frames {
    /// The method's name as pg_dump's `--compress` spells it.
    pub(super) fn name(self) -> &'static str {
        match self {
            Frames::Lz4 => "lz4",
            Frames::Zstd => "zstd",
        }
    }

    /// The suffix pg_dump gives a directory-format dump's file of rows
    /// compressed this way.
    pub(super) fn suffix(self) -> &'static str {
        match self {
            Frames::Lz4 => "lz4",
            Frames::Zstd => "zst",
        }
    }

    /// [`Frames::reader`], its errors naming `what` is read (the file or
    /// the block of rows) and this method.
    pub(super) fn named_reader<R: Read + Send + 'static>(
        self,
        what: impl std::fmt::Display,
        r: R,
    ) -> Box<dyn Read + Send> {
        Box::new(Named {
            what: format!("{what}, compressed with {}", self.name()),
            r: self.reader(r),
        })
    }

    /// What `r` holds, decompressed as it is read: every frame in turn
    /// until `r` ends.
    pub(super) fn reader<R: Read + Send + 'static>(self, r: R) -> Box<dyn Read + Send> {
        match self {
            Frames::Lz4 => Box::new(Lz4Frames {
                frames: Some(lz4_flex::frame::FrameDecoder::new(Tail {
                    r,
                    last: [0xff; 8],
                    read: 0,
                })),
            }),
            Frames::Zstd => Box::new(ZstdFrames::new(BufReader::with_capacity(1 << 16, r))),
        }
    }
}

/// A reader's errors preceded by what it reads (the file or the block of
/// rows) and how it is compressed.
struct Named {
    what: String,
    r: Box<dyn Read + Send>,
}

impl Read for Named {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.r
            .read(buf)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", self.what)))
    }
}

/// An lz4 stream of one frame or several, which must end where a frame
/// ends. The decoder stops at each frame's end, and takes a stream cut
/// where a block starts for an end;
/// such a stream is refused here: a frame ends with a zero block size (its
/// end mark), followed by the content's 4-byte checksum when the frame has
/// one, so a stream whose last 4 bytes, or the 4 before its checksum, are
/// not zeros was cut. (A block's own bytes end in four zeros only where
/// the text holds NUL bytes, which no SQL text does.)
struct Lz4Frames<R: Read> {
    /// A decoder of its own for each frame (one sized for a frame of large
    /// blocks is not meant to read a frame of small ones after it).
    frames: Option<lz4_flex::frame::FrameDecoder<Tail<R>>>,
}

impl<R: Read> Read for Lz4Frames<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let Some(frames) = self.frames.as_mut() else {
                return Ok(0);
            };
            let before = frames.get_ref().read;
            let n = frames.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            // The decoder reads as ended at each frame's end: the next
            // frame, if the stream goes on, is read by a new one.
            let t = frames.get_ref();
            if t.read != before {
                let tail = self.frames.take().map(|f| f.into_inner());
                self.frames = tail.map(lz4_flex::frame::FrameDecoder::new);
                continue;
            }
            let ended = t.read == 0 || t.last[4..] == [0; 4] || t.last[..4] == [0; 4];
            if !ended {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "lz4-compressed data cut short: the stream ends inside a frame",
                ));
            }
            return Ok(0);
        }
    }
}

/// A reader that remembers the last 8 bytes it gave and how many.
struct Tail<R> {
    r: R,
    last: [u8; 8],
    read: u64,
}

impl<R: Read> Read for Tail<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.r.read(buf)?;
        let got = &buf[..n];
        if n >= 8 {
            self.last.copy_from_slice(&got[n - 8..]);
        } else if n > 0 {
            self.last.rotate_left(n);
            self.last[8 - n..].copy_from_slice(got);
        }
        self.read += n as u64;
        Ok(n)
    }
}

/// A zstd stream of one frame or several (`cat a.zst b.zst`), frame after
/// frame; skippable frames are skipped, as `zstd -d` skips them.
struct ZstdFrames<R: BufRead> {
    state: State<R>,
}

enum State<R: BufRead> {
    /// Between frames, with the decoder to use again.
    Between(R, Box<ruzstd::decoding::FrameDecoder>),
    In(ruzstd::decoding::StreamingDecoder<R, Box<ruzstd::decoding::FrameDecoder>>),
    /// After an error or the end: nothing more is read.
    Done,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(r: R) -> ZstdFrames<R> {
        ZstdFrames {
            state: State::Between(r, Box::new(ruzstd::decoding::FrameDecoder::new())),
        }
    }
}

fn invalid(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("zstd-compressed data that cannot be read: {e}"),
    )
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return Ok(0),
                State::In(mut frame) => {
                    let n = frame.read(buf)?;
                    if n > 0 {
                        self.state = State::In(frame);
                        return Ok(n);
                    }
                    let (r, decoder) = frame.into_parts();
                    if let (Some(stored), Some(made)) = (
                        decoder.get_checksum_from_data(),
                        decoder.get_calculated_checksum(),
                    ) {
                        if stored != made {
                            return Err(invalid("a frame whose checksum does not match"));
                        }
                    }
                    self.state = State::Between(r, decoder);
                }
                State::Between(mut r, decoder) => {
                    let head = r.fill_buf()?;
                    if head.is_empty() {
                        return Ok(0);
                    }
                    // A skippable frame: its magic number (`0x184D2A5?`)
                    // and its length, then that many bytes.
                    if head.len() >= 8 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18]
                    {
                        let length = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
                        r.consume(8);
                        let skipped = std::io::copy(
                            &mut (&mut r).take(u64::from(length)),
                            &mut std::io::sink(),
                        )?;
                        if skipped < u64::from(length) {
                            return Err(invalid("a skippable frame cut short"));
                        }
                        self.state = State::Between(r, decoder);
                        continue;
                    }
                    let frame = ruzstd::decoding::StreamingDecoder::new_with_decoder(r, decoder)
                        .map_err(invalid)?;
                    self.state = State::In(frame);
                }
            }
        }
    }
}

/// `data` as one lz4 frame, and as one zstd frame (for tests).
#[cfg(test)]
pub(super) fn lz4(data: &[u8]) -> Vec<u8> {
    let mut w = lz4_flex::frame::FrameEncoder::new(Vec::new());
    std::io::Write::write_all(&mut w, data).unwrap();
    w.finish().unwrap()
}

#[cfg(test)]
pub(super) fn zstd(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(frames: Frames, bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        frames
            .reader(std::io::Cursor::new(bytes))
            .read_to_end(&mut out)?;
        Ok(out)
    }

    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| format!("{i}\trow {}\t\\N\n", i * 7 % 13).into_bytes())
            .collect()
    }

    #[test]
    fn one_frame_or_several_read_as_their_bytes() {
        let (a, b) = (text(20_000), text(3));
        for frames in [Frames::Lz4, Frames::Zstd] {
            let pack = |d: &[u8]| match frames {
                Frames::Lz4 => lz4(d),
                Frames::Zstd => zstd(d),
            };
            assert!(read(frames, pack(&a)).unwrap() == a, "{frames:?}");
            let mut two = pack(&a);
            two.extend(pack(&b));
            let mut both = a.clone();
            both.extend(&b);
            let got = read(frames, two).unwrap();
            assert!(
                got == both,
                "{frames:?}: {} of {} bytes, first difference at {:?}",
                got.len(),
                both.len(),
                got.iter().zip(&both).position(|(x, y)| x != y)
            );
            assert_eq!(read(frames, pack(b"")).unwrap(), b"", "{frames:?}");
            // Cut anywhere: an error, never fewer bytes read as all.
            let whole = pack(&a);
            for cut in (1..whole.len()).step_by(97).chain([whole.len() - 1]) {
                let r = read(frames, whole[..cut].to_vec());
                assert!(r.is_err(), "{frames:?} cut at {cut} of {}", whole.len());
            }
            assert_eq!(read(frames, Vec::new()).unwrap(), b"", "{frames:?}");
        }
    }

    #[test]
    fn a_skippable_zstd_frame_is_skipped() {
        let mut bytes = vec![0x50, 0x2a, 0x4d, 0x18];
        bytes.extend(5u32.to_le_bytes());
        bytes.extend(b"12345");
        bytes.extend(zstd(b"after"));
        assert_eq!(read(Frames::Zstd, bytes).unwrap(), b"after");
    }

    /// Bytes changed or cut anywhere end in an error or in some bytes:
    /// never a panic.
    #[test]
    fn damaged_frames_end_in_an_error_or_bytes() {
        let data = text(5_000);
        for frames in [Frames::Lz4, Frames::Zstd] {
            let good = match frames {
                Frames::Lz4 => lz4(&data),
                Frames::Zstd => zstd(&data),
            };
            for (round, bytes) in super::super::damaged(&good, 300).enumerate() {
                if let Ok(out) = read(frames, bytes) {
                    assert!(out.len() <= 64 * data.len(), "{frames:?} round {round}");
                }
            }
        }
    }
}
