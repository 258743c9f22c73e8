// Only for other stores' file formats (KDBX's XML); expat rather than libxml2 because Debian's
// libxml2 pulls in ICU (about 30 MB) and expat needs nothing.
#include <expat.h>
