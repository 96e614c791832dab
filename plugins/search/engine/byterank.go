package engine

// byteRank orders bytes by how often they occur in text: 0 is the rarest,
// 255 (the space) the most common. The literal finders search for the
// rarest byte of a needle with bytes.IndexByte, so a good guess of rarity
// decides how often they stop on a false candidate.
//
// The ranks were measured once over an equal-weight mix of four corpora (Go
// sources of the standard library, C headers, Python's standard library and
// English prose in READMEs and licence texts), the same idea as the table in
// ripgrep's memchr crate. They are a heuristic: a wrong guess costs time,
// never correctness.
var byteRank = [256]uint8{
	0, 1, 2, 3, 4, 5, 6, 7, 8, 233, 246, 9, 78, 64, 10, 11, // 0x00
	12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, // 0x10
	255, 169, 208, 200, 159, 168, 170, 205, 230, 231, 223, 171, 234, 211, 232, 240, // 0x20
	237, 218, 212, 203, 202, 196, 198, 184, 195, 194, 222, 182, 174, 207, 178, 162, // 0x30
	164, 220, 189, 213, 201, 225, 197, 190, 180, 221, 166, 177, 216, 199, 215, 214, // 0x40
	206, 165, 217, 226, 224, 188, 181, 176, 185, 175, 163, 192, 193, 191, 157, 242, // 0x50
	183, 247, 229, 244, 243, 254, 238, 227, 236, 251, 179, 209, 245, 235, 250, 249, // 0x60
	241, 172, 248, 252, 253, 239, 210, 204, 228, 219, 173, 187, 167, 186, 156, 28, // 0x70
	158, 127, 148, 140, 115, 134, 114, 101, 136, 108, 117, 81, 95, 79, 85, 72, // 0x80
	109, 83, 84, 105, 153, 96, 76, 102, 133, 150, 70, 71, 147, 146, 87, 149, // 0x90
	110, 128, 77, 111, 132, 112, 104, 107, 88, 154, 91, 151, 113, 119, 90, 74, // 0xa0
	116, 135, 131, 118, 123, 122, 141, 99, 130, 129, 125, 94, 137, 120, 138, 80, // 0xb0
	29, 30, 155, 160, 86, 106, 53, 63, 57, 73, 69, 59, 103, 68, 144, 97, // 0xc0
	152, 126, 49, 51, 54, 66, 67, 82, 142, 145, 60, 61, 55, 45, 48, 50, // 0xd0
	100, 139, 161, 143, 89, 121, 124, 98, 92, 75, 65, 56, 58, 52, 46, 62, // 0xe0
	93, 31, 32, 33, 47, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, // 0xf0
}
