//! Issue 54: an export reads its input through the one handle it was given, never by its
//! path again: a file deleted (or replaced) once opened is exported whole as it was.

use bitlens_export::{export_files, ExportOptions, Format, ScanOptions, Source};

#[test]
fn a_file_deleted_after_opening_is_exported_from_its_handle() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = bitlens::rdb::RdbWriter::new(Vec::new(), 11).unwrap();
    // With used-mem: the allocator inference reads the file once more.
    w.aux(b"used-mem", b"1000000").unwrap();
    w.select_db(0).unwrap();
    for i in 0..1000 {
        w.write_string(format!("k:{i}").as_bytes(), b"v", None)
            .unwrap();
    }
    let path = dir.path().join("gone.rdb");
    std::fs::write(&path, w.finish().unwrap()).unwrap();
    let src = Source::new(&path, std::fs::File::open(&path).unwrap());
    std::fs::remove_file(&path).unwrap();
    // Another file under the same name: not read.
    std::fs::write(&path, b"REDIS0011\xff\0\0\0\0\0\0\0\0").unwrap();
    let opts = ExportOptions {
        scan: ScanOptions {
            instance: Some("x".into()),
            ..ScanOptions::default()
        },
        format: Format::Csv,
        out: dir.path().join("out"),
        jobs: 1,
        rows_per_file: 1 << 20,
        instance_from: Default::default(),
    };
    let r = export_files(&[src], &opts);
    let e = r[0].as_ref().unwrap();
    assert_eq!(e.rows, 1000);
}
