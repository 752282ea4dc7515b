package portal

import "github.com/sello-do/sello/internal/i18n"

// The Webhooks pages' strings (webhooks.go, webhooks.templ), Spanish and
// English, keyed by their English text.
func init() {
	i18n.Register(map[string]i18n.Entry{
		// The menu, the tabs and the titles.
		"Webhooks":            {EN: "Webhooks", ES: "Webhooks"},
		"Webhooks in %s":      {EN: "Webhooks in %s", ES: "Webhooks en %s"},
		"Endpoints":           {EN: "Endpoints", ES: "Endpoints"},
		"Endpoint":            {EN: "Endpoint", ES: "Endpoint"},
		"Deliveries":          {EN: "Deliveries", ES: "Entregas"},
		"Failed":              {EN: "Failed", ES: "Fallidas"},
		"Failed deliveries":   {EN: "Failed deliveries", ES: "Entregas fallidas"},
		"Delivery":            {EN: "Delivery", ES: "Entrega"},
		"Delivery of %s":      {EN: "Delivery of %s", ES: "Entrega de %s"},
		"Add an endpoint":     {EN: "Add an endpoint", ES: "Agregar un endpoint"},
		"Endpoint added":      {EN: "Endpoint added", ES: "Endpoint agregado"},
		"New secret":          {EN: "New secret", ES: "Secreto nuevo"},
		"Delete the endpoint": {EN: "Delete the endpoint", ES: "Eliminar el endpoint"},
		"All endpoints":       {EN: "All endpoints", ES: "Todos los endpoints"},
		"All deliveries":      {EN: "All deliveries", ES: "Todas las entregas"},

		// The endpoints.
		"Sello sends each event of your documents to your endpoints as a signed HTTP POST; your system checks the signature with the endpoint's secret.": {
			EN: "Sello sends each event of your documents to your endpoints as a signed HTTP POST; your system checks the signature with the endpoint's secret.",
			ES: "Sello envía cada evento de sus documentos a sus endpoints como un HTTP POST firmado; su sistema verifica la firma con el secreto del endpoint."},
		"No endpoint in %s yet.": {EN: "No endpoint in %s yet.", ES: "Todavía no hay endpoints en %s."},
		"State":                  {EN: "State", ES: "Estado"},
		"Why":                    {EN: "Why", ES: "Motivo"},
		"Failing since":          {EN: "Failing since", ES: "Fallando desde"},
		"Events":                 {EN: "Events", ES: "Eventos"},
		"Every event":            {EN: "Every event", ES: "Todos los eventos"},
		"Added":                  {EN: "Added", ES: "Agregado"},
		"Environment":            {EN: "Environment", ES: "Ambiente"},
		"Id":                     {EN: "Id", ES: "Id"},
		"active":                 {EN: "active", ES: "activo"},
		"paused":                 {EN: "paused", ES: "pausado"},
		"disabled":               {EN: "disabled", ES: "deshabilitado"},

		// Adding one.
		"URL of your receiver": {EN: "URL of your receiver", ES: "URL de su receptor"},
		"https:// and reachable from the Internet; http:// is accepted outside eCF. Redirects are not followed.": {
			EN: "https:// and reachable from the Internet; http:// is accepted outside eCF. Redirects are not followed.",
			ES: "https:// y accesible desde Internet; fuera de eCF también se acepta http://. No se siguen redirecciones."},
		"Every event, including those Sello adds later": {EN: "Every event, including those Sello adds later", ES: "Todos los eventos, incluidos los que Sello agregue después"},
		"Only the events marked below":                  {EN: "Only the events marked below", ES: "Solo los eventos marcados abajo"},
		"Mark at least one event, or choose every event.": {
			EN: "Mark at least one event, or choose every event.",
			ES: "Marque al menos un evento, o elija todos los eventos."},
		"Sello makes the signing secret and shows it once, on the next page.": {
			EN: "Sello makes the signing secret and shows it once, on the next page.",
			ES: "Sello crea el secreto de firma y lo muestra una sola vez, en la página siguiente."},
		"Add the endpoint": {EN: "Add the endpoint", ES: "Agregar el endpoint"},
		"Cancel":           {EN: "Cancel", ES: "Cancelar"},

		// A secret, shown once.
		"Copy this secret now and keep it with your receiver: it is not shown again.": {
			EN: "Copy this secret now and keep it with your receiver: it is not shown again.",
			ES: "Copie este secreto ahora y guárdelo con su receptor: no se vuelve a mostrar."},
		"Copied":          {EN: "Copied", ES: "Copiado"},
		"Copy the secret": {EN: "Copy the secret", ES: "Copiar el secreto"},
		"Until %s each delivery is signed with both the new secret and the previous one, so your receiver may switch to the new one at any moment before then.": {
			EN: "Until %s each delivery is signed with both the new secret and the previous one, so your receiver may switch to the new one at any moment before then.",
			ES: "Hasta el %s cada entrega se firma con el secreto nuevo y con el anterior, así que su receptor puede cambiar al nuevo en cualquier momento antes de esa hora."},
		"From now on only the new secret signs.": {EN: "From now on only the new secret signs.", ES: "Desde ahora solo firma el secreto nuevo."},
		"Your receiver checks each delivery's Sello-Signature header with this secret: HMAC-SHA256 of the timestamp, a dot and the raw body.": {
			EN: "Your receiver checks each delivery's Sello-Signature header with this secret: HMAC-SHA256 of the timestamp, a dot and the raw body.",
			ES: "Su receptor verifica la cabecera Sello-Signature de cada entrega con este secreto: HMAC-SHA256 de la marca de tiempo, un punto y el cuerpo tal como llega."},
		"Done": {EN: "Done", ES: "Listo"},

		// One endpoint.
		"Pause":             {EN: "Pause", ES: "Pausar"},
		"Resume":            {EN: "Resume", ES: "Reanudar"},
		"Send a test event": {EN: "Send a test event", ES: "Enviar un evento de prueba"},
		"Delete":            {EN: "Delete", ES: "Eliminar"},
		"While paused, new deliveries wait; resuming sends them.": {
			EN: "While paused, new deliveries wait; resuming sends them.",
			ES: "Mientras está pausado, las entregas nuevas esperan; al reanudarlo se envían."},
		"Signing secrets": {EN: "Signing secrets", ES: "Secretos de firma"},
		"Secrets are shown only when they are made. While more than one signs, each delivery carries one signature per secret.": {
			EN: "Secrets are shown only when they are made. While more than one signs, each delivery carries one signature per secret.",
			ES: "Los secretos solo se muestran al crearlos. Mientras firma más de uno, cada entrega lleva una firma por secreto."},
		"Newest, made %s": {EN: "Newest, made %s", ES: "El más reciente, creado el %s"},
		"Made %s":         {EN: "Made %s", ES: "Creado el %s"},
		"signs until %s":  {EN: "signs until %s", ES: "firma hasta el %s"},
		"How long the previous secret keeps signing beside the new one": {
			EN: "How long the previous secret keeps signing beside the new one",
			ES: "Cuánto tiempo sigue firmando el secreto anterior junto al nuevo"},
		"Time for your receiver to switch to the new secret without rejecting a delivery.": {
			EN: "Time for your receiver to switch to the new secret without rejecting a delivery.",
			ES: "Tiempo para que su receptor cambie al secreto nuevo sin rechazar ninguna entrega."},
		"None: the previous secret stops signing now": {EN: "None: the previous secret stops signing now", ES: "Nada: el secreto anterior deja de firmar ya"},
		"1 hour":            {EN: "1 hour", ES: "1 hora"},
		"%d hours":          {EN: "%d hours", ES: "%d horas"},
		"%d days":           {EN: "%d days", ES: "%d días"},
		"Make a new secret": {EN: "Make a new secret", ES: "Crear un secreto nuevo"},
		"Choose how long the previous secret keeps signing.": {
			EN: "Choose how long the previous secret keeps signing.",
			ES: "Elija cuánto tiempo sigue firmando el secreto anterior."},
		"Latest deliveries":     {EN: "Latest deliveries", ES: "Últimas entregas"},
		"No delivery yet.":      {EN: "No delivery yet.", ES: "Todavía no hay entregas."},
		"All its deliveries":    {EN: "All its deliveries", ES: "Todas sus entregas"},
		"Its failed deliveries": {EN: "Its failed deliveries", ES: "Sus entregas fallidas"},
		"It gets no more deliveries, and those waiting for it fail. Its past deliveries stay in the log for 30 days. It cannot be undone: to receive events there again, add the endpoint anew.": {
			EN: "It gets no more deliveries, and those waiting for it fail. Its past deliveries stay in the log for 30 days. It cannot be undone: to receive events there again, add the endpoint anew.",
			ES: "No recibirá más entregas, y las que esperan por él fallan. Sus entregas pasadas quedan en el registro durante 30 días. No se puede deshacer: para volver a recibir eventos ahí, agregue el endpoint de nuevo."},

		// The deliveries.
		"Every endpoint":      {EN: "Every endpoint", ES: "Todos los endpoints"},
		"Show":                {EN: "Show", ES: "Mostrar"},
		"No failed delivery.": {EN: "No failed delivery.", ES: "Ninguna entrega fallida."},
		"No delivery.":        {EN: "No delivery.", ES: "Ninguna entrega."},
		"Newest":              {EN: "Newest", ES: "Más recientes"},
		"Older":               {EN: "Older", ES: "Más antiguas"},
		"This page of the log does not exist. Start again from the first page.": {
			EN: "This page of the log does not exist. Start again from the first page.",
			ES: "Esa página del registro no existe. Empiece de nuevo desde la primera página."},
		"Send the failed deliveries again": {EN: "Send the failed deliveries again", ES: "Reenviar las entregas fallidas"},
		"Every delivery that failed since the time you give is sent again, once, as a new delivery: sending twice does not repeat them. Endpoints that are disabled are left out; resume them first.": {
			EN: "Every delivery that failed since the time you give is sent again, once, as a new delivery: sending twice does not repeat them. Endpoints that are disabled are left out; resume them first.",
			ES: "Cada entrega que falló desde la hora que indique se reenvía una vez, como una entrega nueva: reenviar dos veces no las repite. Los endpoints deshabilitados quedan fuera; reanúdelos primero."},
		"Failed since":             {EN: "Failed since", ES: "Fallidas desde"},
		"Dominican Republic time.": {EN: "Dominican Republic time.", ES: "Hora de la República Dominicana."},
		"Send them again":          {EN: "Send them again", ES: "Reenviarlas"},
		"Give the date and time from which to send the failed deliveries again.": {
			EN: "Give the date and time from which to send the failed deliveries again.",
			ES: "Indique la fecha y la hora desde las que se reenvían las entregas fallidas."},
		"Created":    {EN: "Created", ES: "Creada"},
		"Event":      {EN: "Event", ES: "Evento"},
		"Attempts":   {EN: "Attempts", ES: "Intentos"},
		"Last error": {EN: "Last error", ES: "Último error"},
		"pending":    {EN: "pending", ES: "pendiente"},
		"held":       {EN: "held", ES: "retenida"},
		"delivered":  {EN: "delivered", ES: "entregada"},
		"failed":     {EN: "failed", ES: "fallida"},

		// One delivery.
		"deleted (%s)":                    {EN: "deleted (%s)", ES: "eliminado (%s)"},
		"event":                           {EN: "an event", ES: "un evento"},
		"replay":                          {EN: "sent again by hand", ES: "reenviada a mano"},
		"test":                            {EN: "a test", ES: "una prueba"},
		"Sends again":                     {EN: "Sends again", ES: "Reenvía"},
		"%d of %d":                        {EN: "%d of %d", ES: "%d de %d"},
		"Next attempt":                    {EN: "Next attempt", ES: "Próximo intento"},
		"Event id":                        {EN: "Event id", ES: "Id del evento"},
		"Send it again":                   {EN: "Send it again", ES: "Reenviarla"},
		"The receiver's answer":           {EN: "The receiver's answer", ES: "La respuesta del receptor"},
		"Waiting for the first attempt…":  {EN: "Waiting for the first attempt…", ES: "Esperando el primer intento…"},
		"Reload":                          {EN: "Reload", ES: "Actualizar"},
		"Attempt":                         {EN: "Attempt", ES: "Intento"},
		"Attempt %d, %s:":                 {EN: "Attempt %d, %s:", ES: "Intento %d, %s:"},
		"When":                            {EN: "When", ES: "Cuándo"},
		"Answer":                          {EN: "Answer", ES: "Respuesta"},
		"HTTP %d":                         {EN: "HTTP %d", ES: "HTTP %d"},
		"no answer":                       {EN: "no answer", ES: "sin respuesta"},
		"Time taken":                      {EN: "Time taken", ES: "Duración"},
		"Body":                            {EN: "Body", ES: "Cuerpo"},
		"No attempt was made.":            {EN: "No attempt was made.", ES: "No se hizo ningún intento."},
		"Address dialled":                 {EN: "Address dialled", ES: "Dirección contactada"},
		"Request headers":                 {EN: "Request headers", ES: "Cabeceras de la solicitud"},
		"Request body":                    {EN: "Request body", ES: "Cuerpo de la solicitud"},
		"Response headers":                {EN: "Response headers", ES: "Cabeceras de la respuesta"},
		"Response body":                   {EN: "Response body", ES: "Cuerpo de la respuesta"},
		"empty":                           {EN: "empty", ES: "vacío"},
		"Only the first %d KiB are kept.": {EN: "Only the first %d KiB are kept.", ES: "Solo se guardan los primeros %d KiB."},

		// After an action.
		"The endpoint is paused: its new deliveries wait until you resume it.": {
			EN: "The endpoint is paused: its new deliveries wait until you resume it.",
			ES: "El endpoint está pausado: sus entregas nuevas esperan hasta que lo reanude."},
		"The endpoint is active again; %d held deliveries are on their way.": {
			EN: "The endpoint is active again; %d held deliveries are on their way.",
			ES: "El endpoint está activo de nuevo; %d entregas retenidas van en camino."},
		"The endpoint was deleted. Its deliveries stay in the log for 30 days.": {
			EN: "The endpoint was deleted. Its deliveries stay in the log for 30 days.",
			ES: "El endpoint se eliminó. Sus entregas quedan en el registro durante 30 días."},
		"Sent again as a new delivery: this one. The original stays as it was.": {
			EN: "Sent again as a new delivery: this one. The original stays as it was.",
			ES: "Reenviada como una entrega nueva: esta. La original queda como estaba."},
		"The endpoint is paused: this delivery waits until you resume it.": {
			EN: "The endpoint is paused: this delivery waits until you resume it.",
			ES: "El endpoint está pausado: esta entrega espera hasta que lo reanude."},
		"Test event sent.": {EN: "Test event sent.", ES: "Evento de prueba enviado."},
		"No failed delivery since then was left to send again.": {
			EN: "No failed delivery since then was left to send again.",
			ES: "No quedaba ninguna entrega fallida desde entonces por reenviar."},
		"One failed delivery is being sent again.": {
			EN: "One failed delivery is being sent again.",
			ES: "Se está reenviando una entrega fallida."},
		"The endpoint is active again; one held delivery is on its way.": {
			EN: "The endpoint is active again; one held delivery is on its way.",
			ES: "El endpoint está activo de nuevo; una entrega retenida va en camino."},
		"The endpoint is active again.": {EN: "The endpoint is active again.", ES: "El endpoint está activo de nuevo."},
		"%d failed deliveries are being sent again.": {
			EN: "%d failed deliveries are being sent again.",
			ES: "Se están reenviando %d entregas fallidas."},
	})
}

// A failed attempt's cause, by class (attemptError).
func init() {
	i18n.Register(map[string]i18n.Entry{
		"The endpoint answered HTTP %d, a redirect: redirects are not followed.": {EN: "The endpoint answered HTTP %d, a redirect: redirects are not followed.", ES: "El endpoint respondió HTTP %d, una redirección: las redirecciones no se siguen."},
		"The endpoint answered HTTP %d.":                                         {EN: "The endpoint answered HTTP %d.", ES: "El endpoint respondió HTTP %d."},
		"The endpoint's host name could not be resolved.":                        {EN: "The endpoint's host name could not be resolved.", ES: "No se pudo resolver el nombre del endpoint."},
		"No connection could be made to the endpoint.":                           {EN: "No connection could be made to the endpoint.", ES: "No se pudo conectar con el endpoint."},
		"The endpoint's TLS certificate or handshake failed.":                    {EN: "The endpoint's TLS certificate or handshake failed.", ES: "Falló el certificado TLS del endpoint o la negociación TLS."},
		"The endpoint did not answer in time.":                                   {EN: "The endpoint did not answer in time.", ES: "El endpoint no respondió a tiempo."},
		"The endpoint's address is not allowed (only public addresses are).":     {EN: "The endpoint's address is not allowed (only public addresses are).", ES: "La dirección del endpoint no está permitida (solo se permiten direcciones públicas)."},
		"The attempt failed.":                                                    {EN: "The attempt failed.", ES: "El intento falló."},
		"Technical detail":                                                       {EN: "Technical detail", ES: "Detalle técnico"},
	})
}
