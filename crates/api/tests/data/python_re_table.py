"""Python's own answers for the api crate's regex tables (run on the stack's python3).

python3 crates/api/tests/data/python_re_table.py compile > crates/api/tests/data/python_re_compile.rs.in
python3 crates/api/tests/data/python_re_table.py search > crates/api/tests/data/python_re_search.rs.in

`compile`: what `re.compile` raises (octavia/common/validate.py `regex`, the L7 rule REGEX
compare value), `None` when it compiles. `search`: `re.search(pattern, value)` for Octavia
19.0.0's WSME `pattern=` regexes (wsme/types.py `StringType.validate`).
"""
import json
import re
import sys
import warnings

warnings.simplefilter('ignore')

COMPILE = [
    '^*', '[z-a]', '\\k', 'a+', 'a**', 'a*?', 'a*+', 'a*??', '$*', '\\b+', '\\A?', '\\Z*',
    '(?=a)*', 'x|*', '(*)', '*', '+a', '?', 'a{2,1}', 'a{1,2}', '{2}', 'a{,3}', 'a{x}', 'a{}',
    '[a-z]', '[a-\\d]', '[\\d-z]', '[--a]', '[a-]', '[]-a]', '[b-a]', '[\\x41-\\x40]', '[a-',
    '\\x4', '\\x41', '\\u00e', '\\u00e9', '\\q', '\\d', '\\_', '\\-', '\\', 'a\\', '[a', '[\\',
    '(a', '((a', 'a)', '(?P<n>a)', '(?:a)*', '[\\A]', '[\\k]', '[\\b]', '[\\8]', '\\1', '\\8',
    '(a)\\1', '(a)\\2', '(a\\1)', '(a(b)\\2)', '(?i)a', 'a(?i)b', '(?i', '(?x', '(?Q)', '(?<a)',
    '(?>a)', '(?#c)', '(?#abc', '(?', '(?P=n)', '(?P<n>a)(?P=n)', '(?P<n>a', 'x{70000}',
    'a{4294967295}', '.*', '^a$', 'a{2}{3}', 'a{1,2}?', 'a{1,2}+', 'a|b', '()', '(?<=a)b',
    '(?<!a)b', '\\N{DIGIT ONE}', '\\N', '^/api/v[0-9]+/.*$', '(foo|bar)\\.example\\.com',
]

PATTERNS = {
    'DOMAIN': r'^(?=.{1,253}\.?$)(?:(?!-|[^.]+_)[A-Za-z0-9-_]{1,63}(?<!-)(?:\.|$))+$',
    'CODES': r'^(\d{3}(\s*,\s*\d{3})*)$|^(\d{3}-\d{3})$',
    'COOKIE': r'^[^\s,;\\]+$',
    'KEY_VALUE': r'^[^\r\n]*$',
}
LABEL = 'a' * 62 + '.'
VALUES = {
    'DOMAIN': ['1.2.3.4', 'foo.123', 'x', 'a_b.com', 'example.com', '-a.com', 'a-.com', 'a..b',
               '.', 'a.', '_a.com', 'a._b', 'xn--a.com', 'a.b-', 'a\n', 'a b', '',
               'A' * 63 + '.com', 'A' * 64 + '.com', LABEL * 4 + 'a', LABEL * 4 + 'ab'],
    'CODES': ['200', '200,201', '200 , 201', '200-204', '200\n', '20', '2000', '200-', '200,',
              '\uff12\uff10\uff10', '200,\t201'],
    'COOKIE': ['c1', 'a b', 'a,b', 'a;b', 'a\\b', '', 'c\n', '\u00fc'],
    'KEY_VALUE': ['abc', 'a\rb', 'a\nb', 'a\n', '', 'a b'],
}


def rust(s):
    return json.dumps(s, ensure_ascii=False)


def main(what):
    print('// made by crates/api/tests/data/python_re_table.py %s (Python %s)'
          % (what, sys.version.split()[0]))
    print('[')
    if what == 'compile':
        for p in COMPILE:
            try:
                re.compile(p)
                got = 'None'
            except Exception as e:  # validate.regex catches any exception
                got = 'Some(%s)' % rust(str(e))
            print('    (%s, %s),' % (rust(p), got))
    else:
        for name, pattern in PATTERNS.items():
            for v in VALUES[name]:
                hit = 'true' if re.search(pattern, v) else 'false'
                print('    (%s, %s, %s),' % (name, rust(v), hit))
    print(']')


main(sys.argv[1])
