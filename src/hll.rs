//! HyperLogLog engine (stub): Redis' HYLL string format, PFADD, PFCOUNT, PFMERGE.
