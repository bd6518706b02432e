"""gunicorn entry point for Barbican: config from $STACK_ETC/barbican.

Barbican parses its configuration at import with oslo.config's default search
(~/.barbican/, ~/, /etc/barbican/, /etc/) and no command line, and its own
entry point loads /etc/barbican/barbican-api-paste.ini. Here HOME points at
$STACK_ETC/barbican (so ~/barbican.conf is ours) and the paste file is
loaded from there too: nothing is written to /etc.
"""
import os
import sys

_etc = os.path.join(os.environ['STACK_ETC'], 'barbican')
os.environ['HOME'] = _etc
# oslo.config must not see gunicorn's own command-line arguments.
sys.argv = ['barbican-api']

from paste import deploy  # noqa: E402

application = deploy.loadapp(
    'config:' + os.path.join(_etc, 'barbican-api-paste.ini'))
