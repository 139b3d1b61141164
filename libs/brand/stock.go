package brand

import "strings"

// Stock palettes of common CSS frameworks, as data. A colour that is
// exactly one of these says that a framework is loaded, not which colour
// the brand chose, so its CSS evidence counts little (stockDiscount). Logo,
// icon and theme-color evidence for the same colour is not discounted: a
// brand may well have picked a stock colour.
const (
	stockBootstrap3 = "#337AB7 #428BCA #5CB85C #5BC0DE #F0AD4E #D9534F #23527C #2E6DA4 #286090 #204D74 #122B40 " +
		"#3276B1 #285E8E #357EBD #2A6496 #3C763D #31708F #8A6D3B #A94442 #DFF0D8 #D9EDF7 #FCF8E3 #F2DEDE " +
		"#449D44 #398439 #31B0D5 #269ABC #EC971F #D58512 #C9302C #AC2925 #4CAE4C #46B8DA #EEA236 #D43F3A"
	stockBootstrap4 = "#007BFF #6610F2 #6F42C1 #E83E8C #DC3545 #FD7E14 #FFC107 #28A745 #20C997 #17A2B8 #6C757D " +
		"#0069D9 #0062CC #0056B3 #218838 #1E7E34 #C82333 #BD2130 #138496 #117A8B #E0A800 #D39E00 #5A6268 " +
		"#545B62 #B8DAFF #CCE5FF #004085 #80BDFF #155724 #D4EDDA #721C24 #F8D7DA #856404 #FFF3CD #0C5460 #D1ECF1"
	stockBootstrap5 = "#0D6EFD #6610F2 #6F42C1 #D63384 #DC3545 #FD7E14 #FFC107 #198754 #20C997 #0DCAF0 #052C65 " +
		"#CFE2FF #9EC5FE #0A58CA #6EA8FE #8BB9FE #0B5ED7 #031633 #157347 #146C43 #BB2D3B #B02A37 #31D2F2 " +
		"#FFCA2C #0AA2C0 #3D8BFD #0A3622 #58151C #664D03 #055160 #D1E7DD #F8D7DA #FFF3CD #CFF4FC"
	stockFoundation  = "#1779BA #3ADB76 #FFAE00 #CC4B37 #14679E #126195 #1468A0 #2C3840 #22BB5B #CC8B00 #A53B2A"
	stockMaterialize = "#26A69A #EE6E73 #2BBBAD #4DB6AC #039BE5 #F44336 #4CAF50 #FFAB40 #E57373 #EA454B #00BFA5 " +
		"#1DE9B6 #64FFDA #80CBC4 #B2DFDB #009688"
	stockBulma = "#00D1B2 #3273DC #209CEE #23D160 #FFDD57 #FF3860 #485FC7 #3E8ED0 #48C78E #FFE08A #F14668 " +
		"#3298DC #48C774 #00C4A7 #00947E #296FA8 #257953 #946C00 #CC0F35 #3850B7 #276CDA #2366D1 #1496ED " +
		"#118FE4 #22C65B #20BC56 #FFDB4A #FFD83D #FF2B56 #FF1F4B #00B89C #3E56C4 #3082C5 #3ABB81 #FFD970 " +
		"#F03A5F #2793DA #3EC46D #FFD83E #EF5F7B #425AFF #66D1FF #FFB70F #FF6685 #00EBC7 #EBFFFC #EFF5FB " +
		"#EFFAF5 #FEECF0 #FFFBEB #EEF6FC #EFF1FA"
	// GitHub Pages' Jekyll themes: Cayman's header gradient and link
	// colours (jekyll-theme-cayman _sass/jekyll-theme-cayman.scss).
	stockJekyllThemes = "#155799 #159957 #1E6BB8 #606C71"
	// stockThemeColors are theme-color metas that a site template writes
	// for every site built with it: Cayman's _layouts/default.html has
	// <meta name="theme-color" content="#157878">.
	stockThemeColors = "#157878"
	stockTailwind    = "" +
		"#020617 #022C22 #0284C7 #030712 #0369A1 #042F2E #047857 #052E16 #059669 #064E3B #065F46 #06B6D4 " +
		"#075985 #082F49 #083344 #0891B2 #09090B #0A0A0A #0C0A09 #0C4A6E #0D9488 #0E7490 #0EA5E9 #0F172A " +
		"#0F766E #10B981 #111827 #115E59 #134E4A #14532D #14B8A6 #155E75 #15803D #164E63 #166534 #16A34A " +
		"#171717 #172554 #18181B #1A2E05 #1C1917 #1D4ED8 #1E1B4B #1E293B #1E3A8A #1E40AF #1F2937 #22C55E " +
		"#22D3EE #2563EB #262626 #27272A #292524 #2DD4BF #2E1065 #312E81 #334155 #34D399 #365314 #3730A3 " +
		"#374151 #38BDF8 #3B0764 #3B82F6 #3F3F46 #3F6212 #404040 #422006 #431407 #4338CA #44403C #450A0A " +
		"#451A03 #475569 #4A044E #4ADE80 #4B5563 #4C0519 #4C1D95 #4D7C0F #4F46E5 #500724 #525252 #52525B " +
		"#57534E #581C87 #5B21B6 #5EEAD4 #60A5FA #6366F1 #64748B #65A30D #67E8F9 #6B21A8 #6B7280 #6D28D9 " +
		"#6EE7B7 #701A75 #713F12 #71717A #737373 #78350F #78716C #7C2D12 #7C3AED #7DD3FC #7E22CE #7F1D1D " +
		"#818CF8 #831843 #84CC16 #854D0E #86198F #86EFAC #881337 #8B5CF6 #92400E #9333EA #93C5FD #94A3B8 " +
		"#991B1B #99F6E4 #9A3412 #9CA3AF #9D174D #9F1239 #A16207 #A1A1AA #A21CAF #A3A3A3 #A3E635 #A5B4FC " +
		"#A5F3FC #A78BFA #A7F3D0 #A855F7 #A8A29E #B45309 #B91C1C #BAE6FD #BBF7D0 #BE123C #BE185D #BEF264 " +
		"#BFDBFE #C026D3 #C084FC #C2410C #C4B5FD #C7D2FE #CA8A04 #CBD5E1 #CCFBF1 #CFFAFE #D1D5DB #D1FAE5 " +
		"#D4D4D4 #D4D4D8 #D6D3D1 #D8B4FE #D946EF #D97706 #D9F99D #DB2777 #DBEAFE #DC2626 #DCFCE7 #DDD6FE " +
		"#E0E7FF #E0F2FE #E11D48 #E2E8F0 #E4E4E7 #E5E5E5 #E5E7EB #E7E5E4 #E879F9 #E9D5FF #EA580C #EAB308 " +
		"#EC4899 #ECFCCB #ECFDF5 #ECFEFF #EDE9FE #EEF2FF #EF4444 #EFF6FF #F0ABFC #F0F9FF #F0FDF4 #F0FDFA " +
		"#F1F5F9 #F3E8FF #F3F4F6 #F43F5E #F472B6 #F4F4F5 #F59E0B #F5D0FE #F5F3FF #F5F5F4 #F5F5F5 #F7FEE7 " +
		"#F87171 #F8FAFC #F97316 #F9A8D4 #F9FAFB #FACC15 #FAE8FF #FAF5FF #FAFAF9 #FAFAFA #FB7185 #FB923C " +
		"#FBBF24 #FBCFE8 #FCA5A5 #FCD34D #FCE7F3 #FDA4AF #FDBA74 #FDE047 #FDE68A #FDF2F8 #FDF4FF #FECACA " +
		"#FECDD3 #FED7AA #FEE2E2 #FEF08A #FEF2F2 #FEF3C7 #FEF9C3 #FEFCE8 #FFE4E6 #FFEDD5 #FFF1F2 #FFF7ED " +
		"#FFFBEB " +
		""
)

// stockColor reports whether c is in a framework's stock palette.
func stockColor(c rgb) bool {
	h := c.hex()
	for _, p := range [...]string{stockBootstrap3, stockBootstrap4, stockBootstrap5, stockFoundation,
		stockMaterialize, stockBulma, stockTailwind, stockJekyllThemes} {
		if strings.Contains(p, h) {
			return true
		}
	}
	return false
}

// cssKind reports the kinds of evidence that come from stylesheets and
// markup rather than from the brand's own marks.
func cssKind(k Kind) bool {
	switch k {
	case KindCSSVariable, KindButton, KindLink, KindHeader, KindFrequency:
		return true
	}
	return false
}

// stockDiscount is the weight left to CSS evidence for a stock colour.
const stockDiscount = 0.3

// stockThemeColor reports a theme-color that a site template writes for
// every site built with it, so it says which template, not which brand.
func stockThemeColor(c rgb) bool {
	return strings.Contains(stockThemeColors, c.hex())
}
