"""gunicorn entry point for glance-api (STACK_COMPUTE=1): config from $STACK_ETC/glance."""
import os
import sys

os.environ['OS_GLANCE_CONFIG_DIR'] = os.path.join(os.environ['STACK_ETC'], 'glance')
# oslo.config must not see gunicorn's own command-line arguments.
sys.argv = ['glance-api']

from glance.wsgi.api import application  # noqa: E402,F401
