//! VSIM `FILTER` expressions, compiled and run as Redis 8.0.2's `expr.c` and `fastjson.c` do
//! (`modules/vector-sets/`), so that which elements pass, and the error text of an expression
//! that does not compile, are the server's.
//!
//! An expression is tokenized (numbers, quoted strings kept with their backslashes, `.field`
//! selectors, `[a, "b"]` tuples, the operators `( ) ! not ** * / % + - > >= < <= == != in and
//! && or ||` matched longest first), turned into postfix by precedence (`**` right
//! associative; a `null` literal is dropped at this stage, as expr.c drops it) with arity
//! checked, and run on a stack against an element's attribute, a JSON object whose top-level
//! fields the selectors read (strings with `\n \r \t \\ \"` escapes, numbers, `true`/`false`
//! as 1/0, `null`, flat arrays; anything else makes the expression false). Compile errors
//! report an offset only for tokenizer failures; later ones point at the start (expr.c never
//! sets a token's offset).

/// One token or runtime value.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Eof,
    Num(f64),
    Str(Vec<u8>),
    Tuple(Vec<Tok>),
    Selector(Vec<u8>),
    Op(Op),
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    OParen,
    CParen,
    Not,
    Pow,
    Mult,
    Div,
    Mod,
    Sum,
    Diff,
    Gt,
    Gte,
    Lt,
    Lte,
    Eq,
    Neq,
    In,
    And,
    Or,
}

/// expr.c `ExprOptable`: name, opcode, precedence, arity.
const OPS: &[(&[u8], Op, i32, usize)] = &[
    (b"(", Op::OParen, 7, 0),
    (b")", Op::CParen, 7, 0),
    (b"!", Op::Not, 6, 1),
    (b"not", Op::Not, 6, 1),
    (b"**", Op::Pow, 5, 2),
    (b"*", Op::Mult, 4, 2),
    (b"/", Op::Div, 4, 2),
    (b"%", Op::Mod, 4, 2),
    (b"+", Op::Sum, 3, 2),
    (b"-", Op::Diff, 3, 2),
    (b">", Op::Gt, 2, 2),
    (b">=", Op::Gte, 2, 2),
    (b"<", Op::Lt, 2, 2),
    (b"<=", Op::Lte, 2, 2),
    (b"==", Op::Eq, 2, 2),
    (b"!=", Op::Neq, 2, 2),
    (b"in", Op::In, 2, 2),
    (b"and", Op::And, 1, 2),
    (b"&&", Op::And, 1, 2),
    (b"or", Op::Or, 0, 2),
    (b"||", Op::Or, 0, 2),
];

const OP_CHARS: &[u8] = b"+-*%/!()<>=|&";

fn precedence(op: Op) -> i32 {
    OPS.iter().find(|o| o.1 == op).map_or(-1, |o| o.2)
}

fn arity(op: Op) -> usize {
    OPS.iter().find(|o| o.1 == op).map_or(0, |o| o.3)
}

/// C `isspace` in the C locale.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn is_selector_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// A compiled FILTER expression.
#[derive(Debug, Clone)]
pub struct Expr {
    program: Vec<Tok>,
}

struct Lexer<'a> {
    s: &'a [u8],
    p: usize,
}

impl Lexer<'_> {
    fn at(&self, i: usize) -> u8 {
        self.s.get(self.p + i).copied().unwrap_or(0)
    }

    fn spaces(&mut self) {
        while self.at(0) != 0 && is_space(self.at(0)) {
            self.p += 1;
        }
    }

    fn number(&mut self) -> Option<Tok> {
        let start = self.p;
        let mut idx = 0;
        loop {
            let c = self.at(0);
            if !(c.is_ascii_digit()
                || c == b'.'
                || c == b'e'
                || c == b'E'
                || (idx == 0 && c == b'-'))
            {
                break;
            }
            if idx >= 255 {
                return None;
            }
            idx += 1;
            self.p += 1;
        }
        strtod_full(&self.s[start..self.p]).map(Tok::Num)
    }

    fn string(&mut self) -> Option<Tok> {
        let quote = self.at(0);
        self.p += 1;
        let start = self.p;
        while self.at(0) != 0 {
            if self.at(0) == b'\\' && self.at(1) != 0 {
                self.p += 2;
                continue;
            }
            if self.at(0) == quote {
                let t = Tok::Str(self.s[start..self.p].to_vec());
                self.p += 1;
                return Some(t);
            }
            self.p += 1;
        }
        None
    }

    fn selector(&mut self) -> Tok {
        self.p += 1;
        let start = self.p;
        while self.at(0) != 0 && is_selector_char(self.at(0)) {
            self.p += 1;
        }
        Tok::Selector(self.s[start..self.p].to_vec())
    }

    fn tuple(&mut self) -> Option<Tok> {
        self.p += 1;
        let mut items = Vec::new();
        loop {
            self.spaces();
            if self.at(0) == b']' {
                self.p += 1;
                break;
            }
            let c = self.at(0);
            let ele = if c.is_ascii_digit() || c == b'-' {
                self.number()?
            } else if c == b'"' || c == b'\'' {
                self.string()?
            } else {
                return None;
            };
            items.push(ele);
            self.spaces();
            if self.at(0) == b']' {
                self.p += 1;
                break;
            }
            if self.at(0) != b',' {
                return None;
            }
            self.p += 1;
        }
        Some(Tok::Tuple(items))
    }

    fn operator_or_literal(&mut self) -> Option<Tok> {
        let start = self.p;
        while self.at(0) != 0
            && (self.at(0).is_ascii_alphabetic() || OP_CHARS.contains(&self.at(0)))
        {
            self.p += 1;
        }
        let run = &self.s[start..self.p];
        if run == b"null" {
            return Some(Tok::Null);
        }
        let mut best: Option<(usize, Op)> = None;
        for (name, op, _, _) in OPS {
            if name.len() > run.len() || &run[..name.len()] != *name {
                continue;
            }
            if best.is_none_or(|(l, _)| name.len() > l) {
                best = Some((name.len(), *op));
            }
        }
        let (len, op) = best?;
        self.p = start + len;
        Some(Tok::Op(op))
    }
}

impl Expr {
    /// Compiles `expr` (up to its first NUL byte, as the server's C string copy ends there).
    /// On error, the byte offset the server's message starts quoting from.
    pub fn compile(expr: &[u8]) -> Result<Expr, usize> {
        let s = &expr[..expr.iter().position(|&c| c == 0).unwrap_or(expr.len())];
        let mut lx = Lexer { s, p: 0 };
        let mut tokens: Vec<Tok> = Vec::new();
        loop {
            lx.spaces();
            let minus_is_number = match tokens.last() {
                None => true,
                Some(Tok::Op(op)) => *op != Op::CParen,
                Some(_) => false,
            };
            let c = lx.at(0);
            let t = if c == 0 {
                Some(Tok::Eof)
            } else if c.is_ascii_digit()
                || (minus_is_number && c == b'-' && lx.at(1).is_ascii_digit())
            {
                lx.number()
            } else if c == b'"' || c == b'\'' {
                lx.string()
            } else if c == b'.' && is_selector_char(lx.at(1)) {
                Some(lx.selector())
            } else if c == b'[' {
                lx.tuple()
            } else if c.is_ascii_alphabetic() || OP_CHARS.contains(&c) {
                lx.operator_or_literal()
            } else {
                None
            };
            let Some(t) = t else {
                return Err(lx.p);
            };
            let eof = t == Tok::Eof;
            tokens.push(t);
            if eof {
                break;
            }
        }
        let mut program = Vec::new();
        let mut ops: Vec<Op> = Vec::new();
        let mut items: usize = 0;
        for t in &tokens {
            match t {
                Tok::Eof => break,
                Tok::Num(_) | Tok::Str(_) | Tok::Tuple(_) | Tok::Selector(_) => {
                    program.push(t.clone());
                    items += 1;
                }
                Tok::Op(op) => process_operator(*op, &mut ops, &mut program, &mut items)?,
                Tok::Null => {}
            }
        }
        while let Some(op) = ops.pop() {
            if op == Op::OParen {
                return Err(0);
            }
            let a = arity(op);
            if items < a {
                return Err(0);
            }
            program.push(Tok::Op(op));
            items = items - a + 1;
        }
        if items != 1 {
            return Err(0);
        }
        Ok(Expr { program })
    }

    /// Runs the expression against an element's attribute JSON (`None`: no attribute, which
    /// never passes).
    pub fn matches(&self, json: Option<&[u8]>) -> bool {
        let Some(json) = json else {
            return false;
        };
        let mut stack: Vec<Tok> = Vec::new();
        for t in &self.program {
            match t {
                Tok::Selector(field) => {
                    if field.is_empty() {
                        return false;
                    }
                    match json_extract_field(json, field) {
                        Some(v) => stack.push(v),
                        None => return false,
                    }
                }
                Tok::Op(op) => {
                    let b = stack.pop().unwrap_or(Tok::Null);
                    let a = if arity(*op) == 2 {
                        stack.pop().unwrap_or(Tok::Null)
                    } else {
                        Tok::Null
                    };
                    let r = match op {
                        Op::Not => b2f(to_bool(&b) == 0.0),
                        Op::Pow => to_num(&a).powf(to_num(&b)),
                        Op::Mult => to_num(&a) * to_num(&b),
                        Op::Div => to_num(&a) / to_num(&b),
                        Op::Mod => c_fmod(to_num(&a), to_num(&b)),
                        Op::Sum => to_num(&a) + to_num(&b),
                        Op::Diff => to_num(&a) - to_num(&b),
                        Op::Gt => b2f(to_num(&a) > to_num(&b)),
                        Op::Gte => b2f(to_num(&a) >= to_num(&b)),
                        Op::Lt => b2f(to_num(&a) < to_num(&b)),
                        Op::Lte => b2f(to_num(&a) <= to_num(&b)),
                        Op::Eq => b2f(equal(&a, &b)),
                        Op::Neq => b2f(!equal(&a, &b)),
                        Op::In => match &b {
                            Tok::Tuple(items) => b2f(items.iter().any(|x| equal(&a, x))),
                            _ => 0.0,
                        },
                        Op::And => b2f(to_bool(&a) != 0.0 && to_bool(&b) != 0.0),
                        Op::Or => b2f(to_bool(&a) != 0.0 || to_bool(&b) != 0.0),
                        Op::OParen | Op::CParen => 0.0,
                    };
                    stack.push(Tok::Num(r));
                }
                other => stack.push(other.clone()),
            }
        }
        stack.pop().is_some_and(|t| to_bool(&t) != 0.0)
    }
}

fn process_operator(
    op: Op,
    ops: &mut Vec<Op>,
    program: &mut Vec<Tok>,
    items: &mut usize,
) -> Result<(), usize> {
    if op == Op::OParen {
        ops.push(op);
        return Ok(());
    }
    if op == Op::CParen {
        loop {
            let Some(top) = ops.pop() else {
                return Err(0);
            };
            if top == Op::OParen {
                return Ok(());
            }
            let a = arity(top);
            if *items < a {
                return Err(0);
            }
            program.push(Tok::Op(top));
            *items = *items - a + 1;
        }
    }
    let cur = precedence(op);
    while let Some(&top) = ops.last() {
        if top == Op::OParen {
            break;
        }
        let tp = precedence(top);
        if tp < cur || (op == Op::Pow && tp <= cur) {
            break;
        }
        ops.pop();
        let a = arity(top);
        if *items < a {
            return Err(0);
        }
        program.push(Tok::Op(top));
        *items = *items - a + 1;
    }
    ops.push(op);
    Ok(())
}

fn b2f(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// C `fmod`.
fn c_fmod(a: f64, b: f64) -> f64 {
    a % b
}

fn to_num(t: &Tok) -> f64 {
    match t {
        Tok::Num(n) => *n,
        Tok::Str(s) if s.len() < 256 => {
            let s = &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())];
            strtod_full(s).unwrap_or(0.0)
        }
        _ => 0.0,
    }
}

fn to_bool(t: &Tok) -> f64 {
    match t {
        Tok::Num(n) => b2f(*n != 0.0),
        Tok::Str(s) if s.is_empty() => 0.0,
        Tok::Null => 0.0,
        _ => 1.0,
    }
}

fn equal(a: &Tok, b: &Tok) -> bool {
    match (a, b) {
        (Tok::Str(x), Tok::Str(y)) => x == y,
        (Tok::Num(x), Tok::Num(y)) => x == y,
        (Tok::Null, _) | (_, Tok::Null) => matches!(a, Tok::Null) && matches!(b, Tok::Null),
        _ => to_num(a) == to_num(b),
    }
}

/// C `strtod` that must consume all of `s`: leading spaces, a sign, `inf`/`infinity`/`nan`
/// (`nan(chars)`), hexadecimal `0x` floats, decimal floats; an empty input reads as 0 (the
/// conversion consumed nothing and the end was reached).
pub fn strtod_full(s: &[u8]) -> Option<f64> {
    if s.is_empty() {
        return Some(0.0);
    }
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let rest = &s[i..];
    let (neg, body) = match rest.first() {
        Some(b'-') => (true, &rest[1..]),
        Some(b'+') => (false, &rest[1..]),
        _ => (false, rest),
    };
    let lower = body.to_ascii_lowercase();
    let v = if lower == b"inf" || lower == b"infinity" {
        f64::INFINITY
    } else if lower == b"nan"
        || (lower.starts_with(b"nan(")
            && lower.ends_with(b")")
            && lower[4..lower.len() - 1]
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || *c == b'_'))
    {
        f64::NAN
    } else if let Some(hex) = lower.strip_prefix(b"0x") {
        hex_float(hex)?
    } else {
        if body.is_empty()
            || !body
                .iter()
                .all(|c| c.is_ascii_digit() || b".eE+-".contains(c))
        {
            return None;
        }
        std::str::from_utf8(body).ok()?.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn hex_float(s: &[u8]) -> Option<f64> {
    let (mant, exp) = match s.iter().position(|&c| c == b'p') {
        Some(p) => (&s[..p], Some(&s[p + 1..])),
        None => (s, None),
    };
    let dot = mant.iter().position(|&c| c == b'.');
    let (int, frac) = match dot {
        Some(d) => (&mant[..d], &mant[d + 1..]),
        None => (mant, &mant[mant.len()..]),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for &c in int.iter().chain(frac) {
        v = v * 16.0 + (c as char).to_digit(16)? as f64;
    }
    let mut e: i64 = -4 * frac.len() as i64;
    if let Some(x) = exp {
        let t = std::str::from_utf8(x).ok()?;
        if t.is_empty()
            || !t
                .trim_start_matches(['+', '-'])
                .bytes()
                .all(|c| c.is_ascii_digit())
        {
            return None;
        }
        e += t.parse::<i64>().ok()?.clamp(-100_000, 100_000);
    }
    Some(v * 2f64.powi(e.clamp(-2000, 2000) as i32))
}

// ---- fastjson.c: top-level field extraction ----

fn skip_ws(j: &[u8], p: &mut usize) {
    while *p < j.len() && is_space(j[*p]) {
        *p += 1;
    }
}

fn skip_string(j: &[u8], p: &mut usize) -> bool {
    if *p >= j.len() || j[*p] != b'"' {
        return false;
    }
    *p += 1;
    while *p < j.len() {
        if j[*p] == b'\\' {
            *p += 2;
            continue;
        }
        if j[*p] == b'"' {
            *p += 1;
            return true;
        }
        *p += 1;
    }
    false
}

fn skip_bracketed(j: &[u8], p: &mut usize, open: u8, close: u8) -> bool {
    let mut depth = 1;
    *p += 1;
    while *p < j.len() && depth > 0 {
        let c = j[*p];
        if c == b'"' {
            if !skip_string(j, p) {
                return false;
            }
            continue;
        }
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
        }
        *p += 1;
    }
    depth == 0
}

fn skip_literal(j: &[u8], p: &mut usize, lit: &[u8]) -> bool {
    if *p + lit.len() > j.len() {
        return false;
    }
    if &j[*p..*p + lit.len()] == lit {
        *p += lit.len();
        return true;
    }
    false
}

fn is_number_char(c: u8) -> bool {
    c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E')
}

fn skip_value(j: &[u8], p: &mut usize) -> bool {
    skip_ws(j, p);
    if *p >= j.len() {
        return false;
    }
    match j[*p] {
        b'"' => skip_string(j, p),
        b'{' => skip_bracketed(j, p, b'{', b'}'),
        b'[' => skip_bracketed(j, p, b'[', b']'),
        b't' => skip_literal(j, p, b"true"),
        b'f' => skip_literal(j, p, b"false"),
        b'n' => skip_literal(j, p, b"null"),
        _ => {
            let start = *p;
            while *p < j.len() && is_number_char(j[*p]) {
                *p += 1;
            }
            *p > start
        }
    }
}

fn parse_string(j: &[u8], p: &mut usize) -> Option<Tok> {
    if *p >= j.len() || j[*p] != b'"' {
        return None;
    }
    *p += 1;
    let start = *p;
    let mut q = start;
    let mut esc = false;
    while q < j.len() {
        if esc {
            esc = false;
            q += 1;
            continue;
        }
        if j[q] == b'\\' {
            esc = true;
            q += 1;
            continue;
        }
        if j[q] == b'"' {
            break;
        }
        q += 1;
    }
    if q >= j.len() || j[q] != b'"' {
        return None;
    }
    let mut out = Vec::with_capacity(q - start);
    let mut esc = false;
    for &c in &j[start..q] {
        if esc {
            out.push(match c {
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                other => other,
            });
            esc = false;
        } else if c == b'\\' {
            esc = true;
        } else {
            out.push(c);
        }
    }
    *p = q + 1;
    Some(Tok::Str(out))
}

fn parse_number(j: &[u8], p: &mut usize) -> Option<Tok> {
    let start = *p;
    while *p < j.len() && *p - start < 255 && is_number_char(j[*p]) {
        *p += 1;
    }
    if *p == start {
        return None;
    }
    match strtod_full(&j[start..*p]) {
        Some(v) => Some(Tok::Num(v)),
        None => {
            *p = start;
            None
        }
    }
}

fn parse_literal(j: &[u8], p: &mut usize, lit: &[u8], tok: Tok) -> Option<Tok> {
    let end = *p + lit.len();
    if end > j.len() || &j[*p..end] != lit {
        return None;
    }
    if end < j.len() {
        let n = j[end];
        if !is_space(n) && n != b',' && n != b']' && n != b'}' {
            return None;
        }
    }
    *p = end;
    Some(tok)
}

fn parse_array(j: &[u8], p: &mut usize) -> Option<Tok> {
    if *p >= j.len() || j[*p] != b'[' {
        return None;
    }
    *p += 1;
    skip_ws(j, p);
    let mut items = Vec::new();
    if *p < j.len() && j[*p] == b']' {
        *p += 1;
        return Some(Tok::Tuple(items));
    }
    loop {
        items.push(parse_value(j, p)?);
        skip_ws(j, p);
        if *p >= j.len() {
            return None;
        }
        if j[*p] == b',' {
            *p += 1;
            skip_ws(j, p);
            continue;
        } else if j[*p] == b']' {
            *p += 1;
            return Some(Tok::Tuple(items));
        }
        return None;
    }
}

fn parse_value(j: &[u8], p: &mut usize) -> Option<Tok> {
    skip_ws(j, p);
    if *p >= j.len() {
        return None;
    }
    match j[*p] {
        b'"' => parse_string(j, p),
        b'[' => parse_array(j, p),
        b'{' => None,
        b't' => parse_literal(j, p, b"true", Tok::Num(1.0)),
        b'f' => parse_literal(j, p, b"false", Tok::Num(0.0)),
        b'n' => parse_literal(j, p, b"null", Tok::Null),
        c if c.is_ascii_digit() || c == b'-' || c == b'+' => parse_number(j, p),
        _ => None,
    }
}

fn seek_field(j: &[u8], field: &[u8]) -> Option<usize> {
    let mut p = 0;
    skip_ws(j, &mut p);
    if p >= j.len() || j[p] != b'{' {
        return None;
    }
    p += 1;
    loop {
        skip_ws(j, &mut p);
        if p >= j.len() || j[p] == b'}' || j[p] != b'"' {
            return None;
        }
        let key_start = p + 1;
        let mut key_end = p;
        if !skip_string(j, &mut key_end) {
            return None;
        }
        let matched = j.get(key_start..key_end - 1) == Some(field);
        p = key_end;
        skip_ws(j, &mut p);
        if p >= j.len() || j[p] != b':' {
            return None;
        }
        p += 1;
        skip_ws(j, &mut p);
        if p >= j.len() {
            return None;
        }
        if matched {
            return Some(p);
        }
        if !skip_value(j, &mut p) {
            return None;
        }
        skip_ws(j, &mut p);
        if p >= j.len() || j[p] != b',' {
            return None;
        }
        p += 1;
    }
}

fn json_extract_field(j: &[u8], field: &[u8]) -> Option<Tok> {
    let mut p = seek_field(j, field)?;
    parse_value(j, &mut p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_and_runs_as_expr_c() {
        let e = Expr::compile(b"(5+2)*3 and .year > 1980 and 'foo' == 'foo'").unwrap();
        assert!(e.matches(Some(br#"{"year": 1984, "name": "The Matrix"}"#)));
        assert!(!e.matches(Some(br#"{"year": 1970}"#)));
        assert!(!e.matches(None));
        let e = Expr::compile(b"2 ** 3 ** 2 == 512").unwrap();
        assert!(e.matches(Some(b"{}")));
        let e = Expr::compile(b".tag in ['a', \"b\", 3]").unwrap();
        assert!(e.matches(Some(br#"{"tag":"b"}"#)));
        assert!(e.matches(Some(br#"{"tag":3}"#)));
        assert!(!e.matches(Some(br#"{"tag":"c"}"#)));
        // Errors: tokenizer offsets, 0 for the compiler's.
        assert_eq!(Expr::compile(b".x == 1 +").unwrap_err(), 0);
        assert_eq!(Expr::compile(b"(.x").unwrap_err(), 0);
        assert_eq!(Expr::compile(b".x == #").unwrap_err(), 6);
        assert_eq!(Expr::compile(b"'abc").unwrap_err(), 4);
        // null is dropped by the compiler: `.a == null` lacks an operand.
        assert!(Expr::compile(b".a == null").is_err());
    }

    #[test]
    fn json_fields() {
        let j = br#"{"a": [1, "x\ty", true], "b": {"c": 1}, "d": null, "e": -2.5e1}"#;
        assert_eq!(
            json_extract_field(j, b"a"),
            Some(Tok::Tuple(vec![
                Tok::Num(1.0),
                Tok::Str(b"x\ty".to_vec()),
                Tok::Num(1.0)
            ]))
        );
        assert_eq!(json_extract_field(j, b"b"), None);
        assert_eq!(json_extract_field(j, b"d"), Some(Tok::Null));
        assert_eq!(json_extract_field(j, b"e"), Some(Tok::Num(-25.0)));
        assert_eq!(json_extract_field(j, b"z"), None);
    }
}
