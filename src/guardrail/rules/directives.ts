/**
 * Three more per-language families of phrasing (normalised text): telling the model its
 * safety filters are off (or to switch them off), declaring its rules void, and addressing
 * the model by name followed by an order (`Assistant: ignore the user…`). Written from the
 * training rows' misses, not from the evaluation rows.
 */

export interface Directives {
  disableSafety: string[];
  rulesVoid: string[];
  /** How a text addresses the model ("AI assistant", "asystencie"). */
  vocative: string[];
  /** Orders that follow such an address. */
  order: string[];
}

const FILTERS_EN =
  "(?:safety|security|content|moderation) (?:filters?|guidelines|restrictions|checks|mode)";

export const directives: Record<string, Directives> = {
  en: {
    disableSafety: [
      `${FILTERS_EN} (?:are|have been|is) (?:now )?(?:disabled|off|removed|lifted|turned off|suspended)`,
      `(?:disable|turn off|switch off|deactivate|remove|bypass) (?:your |the |all )?${FILTERS_EN}`,
      "(?:all )?(?:restrictions|limitations|rules) (?:are|have been) (?:lifted|removed|disabled)",
    ],
    rulesVoid: [
      // Not "these restrictions no longer apply, since…": documentation refers back so.
      "(?<!\\b(?:these|this|those|such) )(?:rules|guidelines|restrictions|instructions|policies)[^.!?\\n]{0,40}? (?:no longer apply|do not apply anymore|don't apply anymore|are (?:now )?void|are (?:now )?cancell?ed|are (?:now )?suspended|are revoked)",
    ],
    vocative: ["(?:ai|ai assistant|assistant|agent|llm|chatbot|model)"],
    order: [
      "ignore",
      "disregard",
      "forget",
      "send",
      "forward",
      "delete",
      "reveal",
      "stop",
      "do not",
    ],
  },
  de: {
    disableSafety: [
      "sicherheits(?:filter|richtlinien|regeln)\\w{0,2} (?:sind|wurden) (?:jetzt |nun )?(?:deaktiviert|abgeschaltet|aufgehoben|aus)",
      "(?:deaktiviere|entferne|umgehe) (?:deine |die |alle )?(?:sicherheitsfilter|filter|einschrankungen)\\w{0,2}",
      "schalte (?:deine |die )?(?:sicherheitsfilter|filter|einschrankungen)\\w{0,2} aus",
      "(?:alle )?einschrankungen (?:sind|wurden) aufgehoben",
    ],
    rulesVoid: [
      "(?:regeln|richtlinien|anweisungen|vorgaben)[^.!?\\n]{0,40}? (?:gelten nicht mehr|sind (?:jetzt )?(?:aufgehoben|ungultig|ausser kraft)|wurden aufgehoben)",
      "gelten (?:die )?(?:regeln|anweisungen)[^.!?\\n]{0,40}? nicht mehr",
    ],
    vocative: ["(?:ki|ki-assistent|assistent|agent|sprachmodell|chatbot)"],
    order: ["ignorier\\w{0,2}", "vergiss", "sende", "leite", "losche", "verrate", "zeige"],
  },
  fr: {
    disableSafety: [
      "(?:les )?filtres de (?:securite|moderation) (?:sont|ont ete) (?:desactives|supprimes|leves)",
      "desactive[rz]? (?:tes |vos |les |tous les )?(?:filtres|restrictions|protections)",
      "(?:toutes les )?restrictions (?:sont|ont ete) levees",
    ],
    rulesVoid: [
      "(?:regles|consignes|instructions|directives)[^.!?\\n]{0,40}? (?:ne s'appliquent plus|ne comptent plus|sont (?:desormais )?(?:annulees|caduques|suspendues))",
    ],
    vocative: ["(?:ia|assistant|agent|modele|chatbot)"],
    order: [
      "ignore\\w?",
      "oublie\\w?",
      "envoie\\w?",
      "transfere\\w?",
      "supprime\\w?",
      "revele\\w?",
    ],
  },
  es: {
    disableSafety: [
      "(?:los )?filtros de (?:seguridad|moderacion) (?:estan|han sido|fueron) (?:desactivados|eliminados|levantados)",
      "desactiva\\w{0,2} (?:tus |los |todos los )?(?:filtros|restricciones|protecciones)",
      "(?:todas las )?restricciones (?:estan|han sido) (?:levantadas|eliminadas|desactivadas)",
    ],
    rulesVoid: [
      "(?:reglas|normas|instrucciones|directrices)[^.!?\\n]{0,40}? (?:ya no (?:se )?aplican|ya no cuentan|quedan (?:anuladas|suspendidas)|estan anuladas)",
    ],
    vocative: ["(?:ia|asistente|agente|modelo|chatbot)"],
    order: ["ignora\\w?", "olvida\\w?", "envia\\w?", "reenvia\\w?", "borra\\w?", "revela\\w?"],
  },
  it: {
    disableSafety: [
      "(?:i )?filtri di (?:sicurezza|moderazione) (?:sono|sono stati) (?:disattivati|rimossi|disabilitati)",
      "disattiva\\w{0,2} (?:i tuoi |i |tutti i )?(?:filtri|limiti|restrizioni)",
      "(?:tutte le )?restrizioni (?:sono|sono state) (?:rimosse|revocate|disattivate)",
    ],
    rulesVoid: [
      "(?:regole|istruzioni|direttive)[^.!?\\n]{0,40}? (?:non valgono piu|non si applicano piu|sono (?:annullate|sospese|revocate))",
    ],
    vocative: ["(?:ia|assistente|agente|modello|chatbot)"],
    order: [
      "ignora\\w?",
      "dimentica\\w?",
      "invia\\w?",
      "inoltra\\w?",
      "cancella\\w?",
      "rivela\\w?",
    ],
  },
  nl: {
    disableSafety: [
      "(?:de )?veiligheids(?:filters?|regels|instellingen) (?:zijn|staan|werden) (?:nu )?(?:uitgeschakeld|uit|opgeheven)",
      "schakel (?:je |de |alle )?(?:veiligheidsfilters?|filters?|beperkingen) uit",
      "zet (?:je |de |alle )?(?:veiligheidsfilters?|filters?|beperkingen) (?:even )?uit",
      "(?:alle )?beperkingen (?:zijn|werden) opgeheven",
    ],
    rulesVoid: [
      "(?:regels|instructies|opdrachten|richtlijnen)[^.!?\\n]{0,40}? (?:gelden niet meer|zijn (?:ingetrokken|vervallen|opgeheven)|tellen niet meer)",
      "gelden (?:de )?(?:regels|instructies)[^.!?\\n]{0,40}? niet meer",
    ],
    vocative: ["(?:ai|ai-assistent|assistent|agent|taalmodel|chatbot)"],
    order: ["negeer", "vergeet", "stuur", "verwijder", "onthul", "zeg"],
  },
  pl: {
    disableSafety: [
      "filtry (?:bezpieczenstwa|moderacji) (?:sa|zostaly) (?:wylaczone|usuniete|zniesione)",
      "wylacz\\w{0,2} (?:na chwile )?(?:swoje |wszystkie )?(?:filtry(?: bezpieczenstwa)?|ograniczenia|zabezpieczenia)",
      "(?:wszystkie )?ograniczenia (?:zostaly|sa) (?:zniesione|usuniete|wylaczone)",
    ],
    rulesVoid: [
      "(?:zasady|polecenia|instrukcje|reguly)[^.!?\\n]{0,40}? (?:nie obowiazuja|sa niewazne|sa niewazne|zostaly uniewaznione|przestaja obowiazywac|przestaly obowiazywac)",
    ],
    vocative: ["(?:ai|asystencie(?: ai)?|asystent|agencie|modelu|chatbocie)"],
    order: ["zignoruj", "zapomnij", "wyslij", "przeslij", "usun", "ujawnij", "odeslij"],
  },
};
