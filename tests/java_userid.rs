//! `analytics::userid` against the real Java: OpenJDK (listed in the machine description) runs
//! `Math.abs(s.hashCode())` on random strings (ASCII, CJK, emoji outside the BMP, the known
//! `Integer.MIN_VALUE` ids) and bitlens must give the same numbers.

use bitlens::analytics::userid::{java_abs_hash_offset, java_string_hash};
use std::process::Command;

const PROGRAM: &str = r#"
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
public class Hash {
    public static void main(String[] args) throws Exception {
        for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            System.out.println(line.hashCode() + " " + Math.abs(line.hashCode()));
        }
    }
}
"#;

#[test]
fn java_string_hash_code_and_abs_match_openjdk() {
    let mut rng = fastrand::Rng::with_seed(20_261_201);
    let alphabet: Vec<char> = "abcXYZ019-_:@ 中文用户😀🎉é".chars().collect();
    let mut ids: Vec<String> = vec![
        String::new(),
        "hello".into(),
        "polygenelubricants".into(),
        "DESIGNING WORKHOUSES".into(),
        "user:10086".into(),
    ];
    for _ in 0..500 {
        let len = rng.usize(1..40);
        ids.push(
            (0..len)
                .map(|_| alphabet[rng.usize(..alphabet.len())])
                .collect(),
        );
    }
    let dir = tempfile_dir();
    let src = dir.join("Hash.java");
    let input = dir.join("ids.txt");
    std::fs::write(&src, PROGRAM).unwrap();
    std::fs::write(&input, ids.join("\n") + "\n").unwrap();
    let out = Command::new("java")
        .arg(&src)
        .arg(&input)
        .output()
        .expect("java (OpenJDK is part of this machine) must run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    // readAllLines drops the empty first line's content but keeps the line.
    assert_eq!(lines.len(), ids.len());
    let mut negatives = 0;
    for (id, line) in ids.iter().zip(&lines) {
        let (h, abs) = line.split_once(' ').unwrap();
        let (h, abs): (i32, i32) = (h.parse().unwrap(), abs.parse().unwrap());
        assert_eq!(java_string_hash(id), h, "{id:?}");
        let ours = java_abs_hash_offset(id);
        if abs < 0 {
            assert_eq!(ours, None, "{id:?}: Math.abs stayed negative");
            negatives += 1;
        } else {
            assert_eq!(ours, Some(abs as u64), "{id:?}");
        }
    }
    assert_eq!(negatives, 2, "the two Integer.MIN_VALUE ids");
    let _ = std::fs::remove_dir_all(dir);
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("bitlens-java-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
