//! TEMPORARY stand-in for `bitlens::rdb::RdbWriter` (being written by the RDB work, same API):
//! header `REDIS` + 4-digit version, SELECTDB, EXPIRETIME_MS, string and ZSET_2 entries, DUMP
//! payloads re-keyed into entries, EOF and the CRC-64 (Jones, as Redis) trailer.
//! Delete this file and use the core writer once it lands on main.

use std::io::{self, Write};

static CRC64: crc::Crc<u64> = crc::Crc::<u64>::new(&crc::CRC_64_REDIS);

/// Writes an RDB file entry by entry.
pub struct RdbWriter<W: Write> {
    w: W,
    digest: crc::Digest<'static, u64>,
}

impl<W: Write> RdbWriter<W> {
    /// Writes the header `REDIS%04d`.
    pub fn new(w: W, version: u32) -> io::Result<Self> {
        let mut me = RdbWriter {
            w,
            digest: CRC64.digest(),
        };
        me.put(format!("REDIS{version:04}").as_bytes())?;
        Ok(me)
    }

    fn put(&mut self, b: &[u8]) -> io::Result<()> {
        self.digest.update(b);
        self.w.write_all(b)
    }

    fn len(&mut self, n: u64) -> io::Result<()> {
        if n < 1 << 6 {
            self.put(&[n as u8])
        } else if n < 1 << 14 {
            self.put(&[0x40 | (n >> 8) as u8, n as u8])
        } else if n <= u32::MAX as u64 {
            self.put(&[0x80])?;
            self.put(&(n as u32).to_be_bytes())
        } else {
            self.put(&[0x81])?;
            self.put(&n.to_be_bytes())
        }
    }

    fn string(&mut self, s: &[u8]) -> io::Result<()> {
        self.len(s.len() as u64)?;
        self.put(s)
    }

    fn expiry(&mut self, expire_at_ms: Option<i64>) -> io::Result<()> {
        if let Some(t) = expire_at_ms {
            self.put(&[0xfc])?;
            self.put(&t.to_le_bytes())?;
        }
        Ok(())
    }

    /// SELECTDB.
    pub fn select_db(&mut self, db: u64) -> io::Result<()> {
        self.put(&[0xfe])?;
        self.len(db)
    }

    /// A string entry.
    pub fn write_string(
        &mut self,
        key: &[u8],
        value: &[u8],
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        self.expiry(expire_at_ms)?;
        self.put(&[0])?;
        self.string(key)?;
        self.string(value)
    }

    /// A sorted set entry (ZSET_2, binary doubles).
    pub fn write_zset(
        &mut self,
        key: &[u8],
        zset: &bitlens::zset::ZSet,
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        self.expiry(expire_at_ms)?;
        self.put(&[5])?;
        self.string(key)?;
        self.len(zset.len() as u64)?;
        for (score, member) in zset.sorted() {
            self.string(member)?;
            self.put(&score.to_le_bytes())?;
        }
        Ok(())
    }

    /// An entry from a DUMP payload (type byte, value, 2-byte version, 8-byte CRC).
    pub fn write_dump_payload(
        &mut self,
        key: &[u8],
        payload: &[u8],
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        if payload.len() < 11 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "DUMP payload too short",
            ));
        }
        let body = &payload[..payload.len() - 10];
        let crc = u64::from_le_bytes(payload[payload.len() - 8..].try_into().unwrap());
        if crc != 0 && CRC64.checksum(&payload[..payload.len() - 8]) != crc {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "DUMP payload checksum mismatch",
            ));
        }
        self.expiry(expire_at_ms)?;
        self.put(&body[..1])?;
        self.string(key)?;
        self.put(&body[1..])
    }

    /// EOF and checksum; returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.put(&[0xff])?;
        let crc = self.digest.clone().finalize();
        self.w.write_all(&crc.to_le_bytes())?;
        self.w.flush()?;
        Ok(self.w)
    }
}
