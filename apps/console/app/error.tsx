"use client";
// Catches what (app)/error.tsx cannot: a failure in the signed-in layout itself (for example the
// database being unreachable while resolving the session).
import AppError from "./(app)/error";

export default AppError;
