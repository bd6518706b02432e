"""gunicorn entry point for placement-api (STACK_COMPUTE=1): config from $STACK_ETC/placement."""
import os
import sys

os.environ['OS_PLACEMENT_CONFIG_DIR'] = os.path.join(os.environ['STACK_ETC'], 'placement')
sys.argv = ['placement-api']

from placement.wsgi.api import application  # noqa: E402,F401
