/**
 * @file version.h
 * @brief Compile-time and run-time version of ibroute.
 */
#ifndef IBROUTE_VERSION_H
#define IBROUTE_VERSION_H

/** Major version: bumped on an incompatible ABI change (soname). */
#define IBR_VERSION_MAJOR 0
/** Minor version: bumped when symbols or options versions are added. */
#define IBR_VERSION_MINOR 1
/** Patch version: bug fixes only. */
#define IBR_VERSION_PATCH 0
/** The version as a string. */
#define IBR_VERSION_STRING "0.1.0"
/** The version as one comparable number: major * 10000 + minor * 100 + patch. */
#define IBR_VERSION_NUMBER \
    (IBR_VERSION_MAJOR * 10000 + IBR_VERSION_MINOR * 100 + IBR_VERSION_PATCH)

#endif
