"""gunicorn entry point for cinder-api (STACK_COMPUTE=1): config from $STACK_ETC/cinder.

cinder's WSGI module hands sys.argv to oslo.config: give it the config file.
"""
import os
import sys

sys.argv = ['cinder-api', '--config-file',
            os.path.join(os.environ['STACK_ETC'], 'cinder', 'cinder.conf')]

from cinder.wsgi.api import application  # noqa: E402,F401
