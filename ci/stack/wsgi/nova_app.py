"""gunicorn entry point for nova-api (STACK_COMPUTE=1): config from $STACK_ETC/nova."""
import os
import sys

os.environ['OS_NOVA_CONFIG_DIR'] = os.path.join(os.environ['STACK_ETC'], 'nova')
os.environ['OS_NOVA_CONFIG_FILES'] = 'api-paste.ini;nova.conf'
sys.argv = ['nova-api']

from nova.wsgi.osapi_compute import application  # noqa: E402,F401
