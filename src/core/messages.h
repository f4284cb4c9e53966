/*
 * Stable message codes. A warning or error the library writes ends in its
 * code in brackets ("routing database line 12: bad seed [DB009]"): the
 * prose may be reworded, the code stays with its condition, so tests and
 * users match the code. Every code is listed, with its message, in
 * doc/messages.md; tests/check_messages.py (the `messages` test) checks
 * that the sources and that table agree and that no code names two
 * messages.
 *
 * Write the message through IBR__MSG(code, text): text is the printf
 * format (string literals and PRI* macros), code a string literal of two
 * capitals naming the part that writes it (doc/messages.md lists them)
 * and three digits. A new message gets the next free number of its part;
 * a retired code is never given again.
 */
#ifndef IBROUTE_CORE_MESSAGES_H
#define IBROUTE_CORE_MESSAGES_H

#define IBR__MSG(code, text) text " [" code "]"

#endif
