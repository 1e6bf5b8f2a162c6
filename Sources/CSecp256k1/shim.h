#ifndef HAWALA_CSECP256K1_SHIM_H
#define HAWALA_CSECP256K1_SHIM_H
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
#include <secp256k1_recovery.h>
#endif
